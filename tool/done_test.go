package tool_test

import (
	"testing"

	"github.com/quiverkit/quiver/tool"
)

// finished is a host's own output that ends a task.
type finished struct{ note string }

func (f finished) DoneSummary() (string, bool) { return f.note, f.note != "" }

func TestIsDone(t *testing.T) {
	cases := []struct {
		name    string
		res     tool.Result
		summary string
		ok      bool
	}{
		{"a Doner that is done", tool.Result{Output: finished{"shipped"}}, "shipped", true},
		{"a Doner that is not", tool.Result{Output: finished{}}, "", false},
		{"a pointer to a Doner", tool.Result{Output: &finished{"p"}}, "p", true},
		{"a nil pointer", tool.Result{Output: (*finished)(nil)}, "", false},
		{"an error result", tool.Result{Output: finished{"x"}, IsError: true}, "", false},
		{"text that says done", tool.Text("Done."), "", false},
		{"no output", tool.Result{}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if s, ok := tool.IsDone(c.res); s != c.summary || ok != c.ok {
				t.Errorf("IsDone = %q, %v; want %q, %v", s, ok, c.summary, c.ok)
			}
		})
	}
}
