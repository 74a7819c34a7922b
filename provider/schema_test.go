package provider_test

import "github.com/google/jsonschema-go/jsonschema"

func objectSchema() *jsonschema.Schema { return &jsonschema.Schema{Type: "object"} }
