// Runs kustomize's krusty tests (sigs.k8s.io/kustomize/api v0.21.1) against an external binary's
// `kustomize` verb. Run: scripts/krusty.sh (see docs/tests.md)
module kubeupd.local/krusty

go 1.26
