#!/usr/bin/env bash
# kustomize's own end-to-end tests (package krusty of sigs.k8s.io/kustomize/api v0.21.1, the api of
# kustomize v5.8.1 that kubectl 1.37.1 embeds) run against a binary's `kustomize` verb by
# scripts/krusty (a Go program: the tests from the module cache, their builds run by the binary on
# their files written to a temporary directory). Needs Go and the binary; see docs/tests.md.
#
#   scripts/krusty.sh                    kubeupd (target/debug/kubeupd, built first): N of M, where M
#                                        are the tests kubectl passes (testdata/krusty/kubectl-1.37.1.txt);
#                                        fails when the run differs from testdata/krusty/kubeupd.txt
#   scripts/krusty.sh --record kubectl   records kubectl's list with the reference kubectl
#   scripts/krusty.sh --record kubeupd   records kubeupd's baseline
#   scripts/krusty.sh -run 'TestA|TestB' -v   some tests, the output of those failing
# KRUSTY_BINARY=PATH runs another binary (nothing is built).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || { echo "krusty.sh: Go is required" >&2; exit 1; }

args=()
binary=${KRUSTY_BINARY:-}
while [ $# -gt 0 ]; do
  case $1 in
    --record)
      args+=(-record "$2")
      [ "$2" = kubectl ] && binary=$(scripts/reference-kubectl.sh)/kubectl
      shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -z "$binary" ]; then
  cargo build --locked --quiet --bin kubeupd
  binary=target/debug/kubeupd
fi
root=$PWD
cd scripts/krusty
GOWORK=off go run . -binary "$(cd "$root" && realpath "$binary")" -testdata "$root/testdata/krusty" -overlay "$root/scripts/krusty/_overlay" "${args[@]}"
