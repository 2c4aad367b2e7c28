#!/usr/bin/env bash
# Runs every test, with kubectl 1.37 (scripts/reference-kubectl.sh, first on the PATH of the
# tests) as the reference, in two jobs against real
# control planes on loopback (built once into ~/.cache/kubeupd, then reused):
#   1. the whole suite against Kubernetes 1.37 (kube-apiserver, etcd 3.6, the controller manager,
#      and a second cluster with kwok's fake nodes, kube-scheduler and the workload controllers):
#      unit tests, the benchmarks once each, the `offline` tests (property and conformance tests,
#      and kubeupd against kubectl's outputs recorded in testdata/golden) and the `cluster` tests;
#      the goldens whose inputs or kubectl version changed are recorded again with the reference
#      kubectl, and the run fails if any did (scripts/golden.sh records them all);
#      then kustomize's own krusty tests run by `kubeupd kustomize` (scripts/krusty.sh, offline:
#      Go and the binary);
#   2. against Kubernetes 1.20, the tests of what only an old server exercises: validation on the
#      client where the server cannot validate, OpenAPI v2 only, ownership after /scale as 1.20
#      keeps it, servers without ApplySet.
#
# Extra arguments go to job 1's `cargo test` instead of `--all-targets`, and job 2 is left out: a
# test binary and a filter of test names, e.g. `scripts/test.sh --test cluster apply::` (the
# module of the former tests/apply.rs) or `scripts/test.sh --test offline`.
# KUBEUPD_KUBERNETES=1.20 runs job 2 alone (with the arguments, if any, instead of its tests).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "test.sh: cargo is required (https://rustup.rs)" >&2; exit 1; }
PATH=$(scripts/reference-kubectl.sh):$PATH
export PATH

# The tests of job 2: what differs on a server before fieldValidation (1.25), OpenAPI v3 (1.27),
# ownership moving with writes through /scale (1.22), and repeated keys a server cannot refuse.
OLD_SERVER_TESTS=(--test cluster -- validate:: validation_table:: openapi:: ignore:: conflicts:: checks::)

# job VERSION UP_FLAG CARGO_TEST_ARGS...: the cluster of VERSION up (UP_FLAG: --controllers or
# -), then the tests against it.
# With --controllers, the cluster with nodes (kwok, kube-scheduler, the workload controllers) is
# started beside it, for the tests of rollouts (KUBEUPD_TEST_NODES_KUBECONFIG).
job() {
  local version=$1 up=$2; shift 2
  [ "$up" = - ] && up=
  KUBEUPD_KUBERNETES=$version scripts/local-cluster.sh up $up
  KUBEUPD_TEST_KUBECONFIG=$(KUBEUPD_KUBERNETES=$version scripts/local-cluster.sh env | sed 's/^export KUBECONFIG=//')
  local nodes=
  [ "$up" = --controllers ] && nodes=$(KUBEUPD_KUBERNETES=$version scripts/local-cluster.sh nodes)
  echo "test.sh: Kubernetes $version" >&2
  KUBEUPD_TEST_KUBECONFIG=$KUBEUPD_TEST_KUBECONFIG KUBEUPD_TEST_NODES_KUBECONFIG=$nodes \
    cargo test --locked --features cluster-tests "$@"
}

# job 1 with CARGO_TEST_ARGS..., stale goldens recorded again (tests/support/golden.rs) and refused.
job1() {
  KUBEUPD_GOLDEN=refresh job 1.37 --controllers "$@"
  if [ -n "$(git status --porcelain -- testdata/golden)" ]; then
    git status --short -- testdata/golden >&2
    echo "test.sh: these goldens were stale (their inputs or kubectl changed) and are recorded again: review and commit them" >&2
    exit 1
  fi
}

case "${KUBEUPD_KUBERNETES:-}:$#" in
  1.20:0) job 1.20 - "${OLD_SERVER_TESTS[@]}" ;;
  1.20:*) job 1.20 - "$@" ;;
  *:0)
    job1 --all-targets
    scripts/krusty.sh
    job 1.20 - "${OLD_SERVER_TESTS[@]}"
    ;;
  *) job1 "$@" ;;
esac
