package quiver_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRootLinksNoCatalogue: a host that brings its own tools does not link
// Quiver's; the standard catalogue (provider/builtin, package tools) is
// something a host opts into.
func TestRootLinksNoCatalogue(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "github.com/quiverkit/quiver/tools", "github.com/quiverkit/quiver/provider/builtin":
			t.Errorf("the root package imports %s", pkg)
		}
	}
}
