// Writes kyaml's built-in OpenAPI schema (the one kustomize's strategic merge patches read) as the
// compact document src/kustomize/kyaml-openapi.json. Run: scripts/gen-kyaml-schema.sh
module kubeupd.local/gen-kyaml-schema

go 1.26.0

require (
	k8s.io/kube-openapi v0.0.0-20241212222426-2c72e554b1e7
	sigs.k8s.io/kustomize/kyaml v0.21.1
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/go-errors/errors v1.4.2 // indirect
	github.com/go-openapi/jsonpointer v0.21.0 // indirect
	github.com/go-openapi/jsonreference v0.20.2 // indirect
	github.com/go-openapi/swag v0.23.0 // indirect
	github.com/google/gnostic-models v0.6.9 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	go.yaml.in/yaml/v3 v3.0.3 // indirect
	google.golang.org/protobuf v1.36.5 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
	sigs.k8s.io/yaml v1.5.0 // indirect
)
