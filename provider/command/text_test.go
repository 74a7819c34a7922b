package command_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/provider/command"
	"github.com/quiverkit/quiver/sandbox"
)

// TestLongOutputHasTheOneMarker: a program whose output outgrows what a
// capture keeps (its first and last 512 KiB) is shown with its two ends
// and outputcache's one marker between them, saying how much was left out
// and that it was not kept — the marker every other trimmed view carries.
func TestLongOutputHasTheOneMarker(t *testing.T) {
	ws := t.TempDir()
	box, err := sandbox.New(sandbox.ReadOnly, ws, sandbox.Config{}, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	p := command.Process{Argv: []string{"seq", "1", "400000"}, Dir: ws, Env: sandbox.HostEnv(nil),
		Timeout: time.Minute, Sandbox: box, Combined: true}
	out, err := command.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	text := command.Result(p.Argv, out).Text()
	markers := regexp.MustCompile(`(?m)^\[\.\.\. \d+ lines \(\d+ bytes\) omitted; the full output was not kept \.\.\.\]$`).FindAllString(text, -1)
	if len(markers) != 1 {
		i := strings.Index(text, "[...")
		t.Fatalf("want one marker line, got %q in %d bytes; near: %q", markers, len(text), text[max(0, i-20):min(len(text), i+200)])
	}
	if !strings.HasPrefix(text, "exit_code: 0\n1\n2\n") || !strings.HasSuffix(text, "\n400000\n") {
		t.Errorf("the two ends are not whole: %q ... %q", text[:40], text[len(text)-40:])
	}
}
