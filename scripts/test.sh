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
cargo test --locked --features cluster-tests --all-targets "$@"
