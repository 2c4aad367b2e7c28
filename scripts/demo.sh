#!/usr/bin/env bash
# The main job, on a fresh machine: bring up the local cluster (Kubernetes 1.37's kube-apiserver
# and etcd, built once, then cached; no controller manager) while kubeupd builds, and use it on
# the manifests in testdata/demo: apply them (namespace and CRD first), read them back, show a
# change as a diff, apply the change, apply again (unchanged), patch and update an object, and
# patch a file offline.
set -euo pipefail
cd "$(dirname "$0")/.."

# kubeupd builds while the control plane starts (or, the first time, builds too).
cargo build --release --locked --quiet &
build=$!
scripts/local-cluster.sh up
eval "$(scripts/local-cluster.sh env)"
wait $build
kubeupd=target/release/kubeupd
step() { printf '\n$ kubeupd %s\n' "$*"; "$kubeupd" "$@"; }

step apply -f testdata/demo
step get deployments,services,configmaps,gizmos -n kubeupd-demo
step get gizmo/sprocket -n kubeupd-demo -o yaml

changed=$(mktemp -d)
trap 'rm -rf "$changed"' EXIT
cp testdata/demo/*.yaml "$changed/"
sed -i 's/replicas: 2/replicas: 3/; s/nginx:1.27/nginx:1.28/' "$changed/20-app.yaml"
printf '\n$ kubeupd diff -f <the demo, with 3 replicas and nginx:1.28>\n'
"$kubeupd" diff -f "$changed" || [ $? -eq 1 ]
step apply -f "$changed"
step apply -f "$changed"
step patch deployment/web -n kubeupd-demo --type strategic -p '{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"LOG","value":"debug"}]}]}}}}'
step update configmap/web-config -n kubeupd-demo --set data.retries=5 --set-string metadata.annotations.reviewed=yes
step get configmap/web-config -n kubeupd-demo -o yaml
step patch --local -f testdata/demo/20-app.yaml --type merge -p '{"spec":{"replicas":1}}' -o name
