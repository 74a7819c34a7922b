package measure

import (
	"strings"
	"testing"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/catalog"
	"github.com/quiverkit/quiver/tools"
)

// TestBuiltinCatalogueBudget holds the built-in catalogue to issue 27's
// budget in the OpenAI Chat form: at most 6,000 tokens whole, at most 4,000
// up front with the default deferral (tools.Core shown, the rest behind
// tool_search). No form a model receives carries an output schema: those
// are for MCP clients, not models.
func TestBuiltinCatalogueBudget(t *testing.T) {
	defs := driver.Definitions(tools.All(), false)
	whole, err := Measure(catalog.Input{Tools: defs})
	if err != nil {
		t.Fatal(err)
	}
	front, err := Measure(catalog.Input{Tools: driver.UpFront((&driver.Deferral{Core: tools.Core}).Mark(defs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if whole[0].Form != catalog.Chat || whole[0].Total > 6000 {
		t.Errorf("%s: the whole catalogue costs %d tokens, over 6,000", whole[0].Form, whole[0].Total)
	}
	if front[0].Total > 4000 {
		t.Errorf("%s: up front %d tokens, over 4,000", front[0].Form, front[0].Total)
	}
	for _, c := range whole {
		els, err := elements(c.Form, defs)
		if err != nil {
			t.Fatal(err)
		}
		for i, el := range els {
			if s := string(el); strings.Contains(s, "output_schema") || strings.Contains(s, "outputSchema") {
				t.Errorf("%s: %s carries an output schema", c.Form, defs[i].Name)
			}
		}
	}
}
