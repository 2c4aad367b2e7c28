#!/usr/bin/env bash
# Records the kubectl outputs that the offline tests (tests/offline) compare kubeupd with, into
# testdata/golden/*.json: `kubectl kustomize` of the corpus in testdata/kustomize, `patch --local`
# of testdata/patches.yaml, usage errors and `--help`, the command line's edges and the objects
# `create` makes (testdata/command-line), kubectl's verdict on values of every flag's type
# (exit status and first line of stderr alone), and kubectl's command tree with every flag
# as its source defines them (scripts/kubectl-flags, a Go program built on the reference kubectl's
# k8s.io/kubectl: `go` is needed, and fetches its modules into the usual GOMODCACHE). kubectl is
# the reference one (scripts/reference-kubectl.sh). Each file keeps that kubectl's version and a SHA-256 of its
# inputs (the files read and the command lines); tests/support/golden.rs does the recording.
#
# To refresh them: run `scripts/golden.sh` after changing an input (the offline test then fails,
# naming this script) or the reference kubectl, look at `git diff testdata/golden`, and commit it.
#
# scripts/test.sh records again only the files whose inputs or kubectl version changed, and fails
# if any did, so that stale goldens never pass.
set -euo pipefail
cd "$(dirname "$0")/.."

PATH=$(scripts/reference-kubectl.sh):$PATH
export PATH

# The feature of scripts/test.sh's runs, so that they reuse this build.
KUBEUPD_GOLDEN=record cargo test --locked --features cluster-tests --test offline "$@"
