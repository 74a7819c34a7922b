package config

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParse holds Parse to its contract on any input: an error or a
// configuration, never a panic; an error names the file; the spec form's
// custom tools come out sorted by name (a table has no order).
func FuzzParse(f *testing.F) {
	f.Add([]byte("[tools.custom.x]\ncommand = \"echo {a}\"\n[tools.custom.x.parameters.a]\n"))
	f.Add([]byte("[[tools.custom]]\nname = \"x\"\ncommand = \"echo\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.toml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Errorf("error without the file's name: %v", err)
			}
			return
		}
		specForm := specForm(data)
		if specForm && !slices.IsSortedFunc(c.Tools.Custom, func(a, b Custom) int { return strings.Compare(a.Name, b.Name) }) {
			t.Errorf("spec-form tools not sorted: %+v", c.Tools.Custom)
		}
	})
}
