package main

import (
	"reflect"
	"testing"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/internal/jsonkeys"
	"github.com/quiverkit/quiver/sandbox"
)

// TestJSONKeysSnakeCase: every key the command writes as JSON is
// snake_case (issue 33), the tools' annotations and a run's usage
// included: each type --json prints, and the audit line of --audit.
func TestJSONKeysSnakeCase(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[toolJSON](),
		reflect.TypeFor[providerJSON](),
		reflect.TypeFor[configJSON](),
		reflect.TypeFor[configErrorJSON](),
		reflect.TypeFor[callJSON](),
		reflect.TypeFor[runEvent](),
		reflect.TypeFor[runResult](),
		reflect.TypeFor[trustedJSON](),
		reflect.TypeFor[versionJSON](),
		reflect.TypeFor[sandbox.Report](),
		reflect.TypeFor[audit.Record](),
	} {
		for _, p := range jsonkeys.Problems(typ) {
			t.Errorf("%s: %s", typ, p)
		}
	}
}
