#!/usr/bin/env bash
# Compares kubeupd's strategic merge engine with Kubernetes' Go implementation on the same inputs.
# Builds a small Go timing program (scripts/bench-go-smp, a module of its own requiring
# k8s.io/apimachinery as Kubernetes 1.37 ships it) into ~/.cache/kubeupd/go-bench, runs
# `cargo bench --bench merge`, then the Go program.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${KUBEUPD_CACHE:-$HOME/.cache/kubeupd}/go-bench
mkdir -p "$CACHE/inputs"

command -v go >/dev/null || { echo "bench-go-smp.sh: Go is required" >&2; exit 1; }
(cd scripts/bench-go-smp && GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$CACHE/smp-bench" .)

KUBEUPD_BENCH_DUMP="$CACHE/inputs" cargo bench --bench merge -- --warm-up-time 1 --measurement-time 3 2>/dev/null \
  | awk '/^(three_way|apply)/ {name=$1} /time:/ {sub(/.*time: *\[/, ""); print "rust", name, $3, $4}'
"$CACHE/smp-bench" "$CACHE"/inputs/*.json
