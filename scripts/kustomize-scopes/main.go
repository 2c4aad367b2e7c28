// kustomize-scopes prints the kinds that the kustomize kubectl embeds (kyaml's openapi package)
// takes for cluster-scoped, one `apiVersion kind` per line, sorted: kyaml's precomputed table and
// the GET paths without a namespace of its built-in OpenAPI document (Kubernetes v1.21.2).
// kustomize sets no namespace on these and only these; any other kind is namespaced to it,
// whatever a newer server says (flowcontrol.apiserver.k8s.io/v1 FlowSchema is namespaced).
//
//	go run . > ../../src/kustomize/cluster-scoped.txt
package main

import (
	"fmt"
	"sort"
	"strings"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/openapi/kubernetesapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func main() {
	raw := kubernetesapi.OpenAPIMustAsset[kubernetesapi.DefaultOpenAPI]("kubernetesapi/v1_21_2/swagger.pb")
	doc := &openapi_v2.Document{}
	if err := proto.Unmarshal(raw, doc); err != nil {
		panic(err)
	}
	// Every type the document serves, with the precomputed ones: asked of kyaml itself.
	candidates := map[yaml.TypeMeta]bool{}
	for _, path := range doc.GetPaths().GetPath() {
		get := path.GetValue().GetGet()
		for _, extension := range get.GetVendorExtension() {
			if extension.GetName() != "x-kubernetes-group-version-kind" {
				continue
			}
			var gvk map[string]string
			if err := yaml.Unmarshal([]byte(extension.GetValue().GetYaml()), &gvk); err != nil {
				panic(err)
			}
			apiVersion := gvk["version"]
			if gvk["group"] != "" {
				apiVersion = gvk["group"] + "/" + apiVersion
			}
			candidates[yaml.TypeMeta{APIVersion: apiVersion, Kind: gvk["kind"]}] = true
		}
	}
	var lines []string
	for typeMeta := range candidates {
		if openapi.IsCertainlyClusterScoped(typeMeta) {
			lines = append(lines, typeMeta.APIVersion+" "+typeMeta.Kind)
		}
	}
	sort.Strings(lines)
	fmt.Println(strings.Join(lines, "\n"))
}
