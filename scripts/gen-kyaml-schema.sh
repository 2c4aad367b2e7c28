#!/usr/bin/env bash
# Regenerates src/kustomize/kyaml-openapi.json: the built-in OpenAPI schema of kyaml (Kubernetes
# v1.21.2 plus kustomize's own kinds), which kustomize's strategic merge patches read, reduced to
# what its merge walk uses. Runs scripts/gen-kyaml-schema, a Go module requiring the kyaml that
# kubectl 1.37's kustomize embeds.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v go >/dev/null || { echo "gen-kyaml-schema.sh: Go is required" >&2; exit 1; }
(cd scripts/gen-kyaml-schema && GOWORK=off go run .) > src/kustomize/kyaml-openapi.json
