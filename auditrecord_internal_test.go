package quiver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/audit"
)

// TestCommandLogIsBounded: a loop that starts thousands of programs is
// recorded as its first audit.MaxCommands and a count, each line cut at
// audit.MaxString. (Starting that many real programs under the sandbox
// would take minutes; the recording path is the same.)
func TestCommandLogIsBounded(t *testing.T) {
	c := &call{tk: &Toolkit{audit: &audit.Memory{}}}
	for i := range 250 {
		c.Ran([]string{"/bin/true", fmt.Sprint(i), strings.Repeat("x", 3000)})
	}
	lines, omitted := c.ran.list()
	if len(lines) != audit.MaxCommands || omitted != 250-audit.MaxCommands {
		t.Fatalf("%d lines, %d omitted; want %d and %d", len(lines), omitted, audit.MaxCommands, 250-audit.MaxCommands)
	}
	if !strings.HasPrefix(lines[0], "/bin/true 0 'xxx") || len(lines[0]) > audit.MaxString+128 {
		t.Errorf("first line %.60q… is %d bytes", lines[0], len(lines[0]))
	}
}

// TestNothingIsQuotedWhenRecordsAreDiscarded: the default toolkit keeps no
// records, and pays for none.
func TestNothingIsQuotedWhenRecordsAreDiscarded(t *testing.T) {
	c := &call{tk: &Toolkit{audit: audit.Discard}}
	c.Ran([]string{"/bin/true"})
	if lines, _ := c.ran.list(); len(lines) != 0 {
		t.Errorf("recorded %q with records discarded", lines)
	}
}
