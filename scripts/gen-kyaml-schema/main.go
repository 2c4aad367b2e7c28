// Prints kyaml's built-in OpenAPI schema as a compact OpenAPI v2 document: per definition, the
// properties that are references, lists or maps, with the patch extensions kyaml's merge walk
// reads, and the kinds (x-kubernetes-group-version-kind). Scalars and descriptions are left out:
// the walk does not look at them. Used by scripts/gen-kyaml-schema.sh.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

var kept = []string{"x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-list-map-keys"}

// shape keeps what kyaml's merge walk reads of a property: where it points, whether it is a
// list or a map, and the patch extensions.
func shape(s *spec.Schema) map[string]interface{} {
	out := map[string]interface{}{}
	if r := s.Ref.String(); r != "" {
		out["$ref"] = r
	}
	if len(s.Type) == 1 && (s.Type[0] == "array" || s.Type[0] == "object") {
		out["type"] = s.Type[0]
	}
	if s.Items != nil && s.Items.Schema != nil {
		if items := shape(s.Items.Schema); len(items) > 0 {
			out["items"] = items
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		if values := shape(s.AdditionalProperties.Schema); len(values) > 0 {
			out["additionalProperties"] = values
		}
	}
	for _, key := range kept {
		if v, ok := s.Extensions[key]; ok {
			out[key] = v
		}
	}
	return out
}

func main() {
	root := openapi.Schema()
	definitions := map[string]interface{}{}
	for name, d := range root.Definitions {
		d := d
		out := map[string]interface{}{}
		props := map[string]interface{}{}
		for p, ps := range d.Properties {
			ps := ps
			if s := shape(&ps); len(s) > 0 {
				props[p] = s
			}
		}
		if len(props) > 0 {
			out["properties"] = props
		}
		if gvk, ok := d.Extensions["x-kubernetes-group-version-kind"]; ok {
			out["x-kubernetes-group-version-kind"] = gvk
		}
		if len(out) > 0 {
			definitions[name] = out
		}
	}
	names := make([]string, 0, len(definitions))
	for name := range definitions {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("{\n\"swagger\":\"2.0\",\n\"info\":{\"title\":\"kyaml's built-in schema, for kustomize's strategic merge (scripts/gen-kyaml-schema)\",\"version\":\"Kubernetes " + openapi.GetSchemaVersion() + ", from sigs.k8s.io/kustomize/kyaml\"},\n\"definitions\":{\n")
	for i, name := range names {
		body, err := json.Marshal(definitions[name])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		key, _ := json.Marshal(name)
		b.Write(key)
		b.WriteString(":")
		b.Write(body)
		if i < len(names)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n}\n")
	os.Stdout.WriteString(b.String())
}
