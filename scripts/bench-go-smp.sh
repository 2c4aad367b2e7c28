#!/usr/bin/env bash
# Compares kubeupd's strategic merge engine with Kubernetes' Go implementation on the same inputs.
# Builds a small Go timing program against the Kubernetes source from Debian (cached in
# ~/.cache/kubeupd/go-bench), runs `cargo bench --bench merge`, then the Go program.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${KUBEUPD_CACHE:-$HOME/.cache/kubeupd}/go-bench
mkdir -p "$CACHE/inputs"

if [ ! -x "$CACHE/smp-bench" ] || [ scripts/bench-go-smp/main.go -nt "$CACHE/smp-bench" ]; then
  scripts/local-cluster.sh build >/dev/null   # installs Go and enables Debian source packages
  tree=$(find "$CACHE" -maxdepth 1 -type d -name 'kubernetes-*' | head -n1)
  if [ -z "$tree" ]; then
    (cd "$CACHE" && apt-get source -qq kubernetes >/dev/null)
    tree=$(find "$CACHE" -maxdepth 1 -type d -name 'kubernetes-*' | head -n1)
  fi
  mkdir -p "$tree/cmd/kubeupd-smp-bench"
  cp scripts/bench-go-smp/main.go "$tree/cmd/kubeupd-smp-bench/"
  # Kubernetes 1.20 builds in GOPATH mode, with its vendor/ folder.
  mkdir -p "$tree/.go/src/k8s.io" && ln -sfn ../../.. "$tree/.go/src/k8s.io/kubernetes"
  (cd "$tree/.go/src/k8s.io/kubernetes" && HOME=$CACHE GOPATH=$tree/.go GO111MODULE=off CGO_ENABLED=0 \
     go build -o "$CACHE/smp-bench" ./cmd/kubeupd-smp-bench)
fi

KUBEUPD_BENCH_DUMP="$CACHE/inputs" cargo bench --bench merge -- --warm-up-time 1 --measurement-time 3 2>/dev/null \
  | awk '/^(three_way|apply)/ {name=$1} /time:/ {sub(/.*time: *\[/, ""); print "rust", name, $3, $4}'
"$CACHE/smp-bench" "$CACHE"/inputs/*.json
