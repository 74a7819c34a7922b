// Command deploycheck holds the Kubernetes manifest of docs/deploy.md to
// the API's schema as the API's own Go types state it: every document is
// decoded strictly (an unknown field or a value of the wrong type is an
// error) into its k8s.io/api type. It is a module of its own so that
// Quiver's does not depend on Kubernetes; kubeconform does the same from
// JSON schemas it downloads, which a machine without the network cannot.
//
//	cd docs/deploycheck && go run . ../deploy.md
package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	md, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(md)
	if m == nil {
		panic("no yaml block")
	}
	bad := 0
	for i, doc := range bytes.Split(m[1], []byte("\n---\n")) {
		var meta struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			panic(err)
		}
		var obj any
		switch meta.APIVersion + " " + meta.Kind {
		case "v1 Secret":
			obj = &corev1.Secret{}
		case "v1 Service":
			obj = &corev1.Service{}
		case "apps/v1 Deployment":
			obj = &appsv1.Deployment{}
		default:
			fmt.Printf("document %d: unknown kind %s %s\n", i, meta.APIVersion, meta.Kind)
			bad++
			continue
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			fmt.Printf("document %d (%s): %v\n", i, meta.Kind, err)
			bad++
			continue
		}
		fmt.Printf("document %d: %s %s ok\n", i, meta.APIVersion, meta.Kind)
	}
	os.Exit(bad)
}
