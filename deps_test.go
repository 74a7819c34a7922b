package quiver_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoCatalogue: a host that brings its own tools does not link
// Quiver's; the standard catalogue (provider/builtin, package tools) is
// something a host opts into. The agent loop runs any toolkit, so it links
// none either: it knows done by its output (tool.IsDone), not by name.
func TestLinksNoCatalogue(t *testing.T) {
	for _, pkg := range []string{".", "./agent"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			switch dep {
			case "github.com/quiverkit/quiver/tools", "github.com/quiverkit/quiver/provider/builtin":
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
}
