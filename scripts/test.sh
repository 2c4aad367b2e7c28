#!/usr/bin/env bash
# Runs every test, with kubectl 1.37 (scripts/reference-kubectl.sh, first on the PATH of the
# tests) as the reference, in two jobs against real
# control planes on loopback (built once into ~/.cache/kubeupd, then reused):
#   1. the whole suite against Kubernetes 1.37 (kube-apiserver, etcd 3.6, the controller manager):
#      unit, property and conformance tests, the benchmarks once each, and the integration tests;
#   2. against Kubernetes 1.20, the tests of what only an old server exercises: validation on the
#      client where the server cannot validate, OpenAPI v2 only, ownership after /scale as 1.20
#      keeps it, servers without ApplySet.
#
# Extra arguments go to job 1's `cargo test`, e.g. `scripts/test.sh --test get`; with arguments,
# job 2 is left out. KUBEUPD_KUBERNETES=1.20 runs job 2 alone.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "test.sh: cargo is required (https://rustup.rs)" >&2; exit 1; }
PATH=$(scripts/reference-kubectl.sh):$PATH
export PATH

# The tests of job 2: what differs on a server before fieldValidation (1.25), OpenAPI v3 (1.27),
# and ownership moving with writes through /scale (1.22).
OLD_SERVER_TESTS=(--test validate --test validation_table --test openapi --test ignore --test conflicts)

job() {
  local version=$1; shift
  KUBEUPD_KUBERNETES=$version scripts/local-cluster.sh up "${UP_FLAGS[@]}"
  KUBEUPD_TEST_KUBECONFIG=$(KUBEUPD_KUBERNETES=$version scripts/local-cluster.sh env | sed 's/^export KUBECONFIG=//')
  echo "test.sh: Kubernetes $version" >&2
  KUBEUPD_TEST_KUBECONFIG=$KUBEUPD_TEST_KUBECONFIG cargo test --locked --features cluster-tests "$@"
}

if [ "${KUBEUPD_KUBERNETES:-}" != 1.20 ]; then
  UP_FLAGS=(--controllers) job 1.37 --all-targets "$@"
fi
if [ $# -eq 0 ] || [ "${KUBEUPD_KUBERNETES:-}" = 1.20 ]; then
  UP_FLAGS=() job 1.20 "${OLD_SERVER_TESTS[@]}"
fi
