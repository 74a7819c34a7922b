package jsonkeys

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type inner struct {
	Good   string `json:"good_key"`
	Camel  string `json:"camelKey"`
	Bare   int
	Kept   string `json:"filePattern"`
	hidden int
}

type embedded struct {
	Lifted string
}

type outer struct {
	embedded
	Skipped  string `json:"-"`
	Nested   []*inner
	ByName   map[string]inner `json:"by_name"`
	When     time.Time        `json:"when"`
	Raw      json.RawMessage  `json:"raw"`
	OmitOnly string           `json:",omitempty"`
}

// TestProblems: untagged fields, other styles and a tag without a name
// are each reported once, wherever they are reached (pointers, slices,
// maps, embedded structs); contracts, "-", unexported fields and types
// that marshal themselves are not.
func TestProblems(t *testing.T) {
	got := Problems(reflect.TypeFor[outer](), "filePattern")
	want := []string{
		`jsonkeys.embedded.Lifted: no json tag, so its key is "Lifted"`,
		`jsonkeys.outer.Nested: no json tag, so its key is "Nested"`,
		`jsonkeys.inner.Camel: key "camelKey" is not snake_case`,
		`jsonkeys.inner.Bare: no json tag, so its key is "Bare"`,
		`jsonkeys.outer.OmitOnly: no json tag, so its key is "OmitOnly"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	_ = inner{}.hidden
}
