package process

import (
	"reflect"
	"testing"

	"github.com/quiverkit/quiver/internal/jsonkeys"
)

// TestWireKeysSnakeCase: the protocol's lines, and the driver types they
// carry, have snake_case keys as every key Quiver chooses (issue 33).
func TestWireKeysSnakeCase(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[request](), reflect.TypeFor[reply]()} {
		for _, p := range jsonkeys.Problems(typ) {
			t.Errorf("%s: %s", typ, p)
		}
	}
}
