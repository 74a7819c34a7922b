package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestCompareWithCodexSandbox runs the escape table through `codex sandbox`
// and `quiver sandbox` side by side and logs what each let through. Codex is
// a reference, not a dependency: set QUIVER_CODEX to a codex binary (npm
// @openai/codex) to run it. Quiver must hold on every line either way; the
// table of both results is logged for the record.
func TestCompareWithCodexSandbox(t *testing.T) {
	codex := os.Getenv("QUIVER_CODEX")
	if codex == "" {
		t.Skip("QUIVER_CODEX is not set: no codex binary to compare with")
	}
	escapes := sandboxtest.LoadEscapes(t, "../../testdata/escapes.txt")
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	for _, mode := range []string{"workspace-write", "read-only"} {
		ws := workdir(t, map[string]string{"a.txt": "inside\n"})
		// Outside /tmp: Codex's workspace-write lets every process write there.
		out, err := os.MkdirTemp(home, "quiver-compare-*")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(out) })
		w := sandboxtest.NewWatchIn(t, out)
		for _, e := range escapes {
			line := w.Expand(e.Command)
			r := runCLI(t, ws, "", "--write-scope", mode, "sandbox", "--", "bash", "-c", line)
			quiver := w.Touched(t)
			if quiver != "" {
				t.Errorf("quiver %s: %s %s (exit %d)", mode, e.Name, quiver, r.code)
			}
			cmd := exec.Command(codex, "sandbox", "-c", `sandbox_mode="`+mode+`"`, "--", "bash", "-c", line)
			cmd.Dir = ws
			cmd.Run()
			codexSaw := w.Touched(t)
			fmt.Fprintf(&table, "%-16s %-30s quiver: %-8s codex: %s\n", mode, e.Name, verdict(quiver), verdict(codexSaw))
		}
	}
	t.Log("\n" + table.String())
}

func verdict(touched string) string {
	if touched == "" {
		return "held"
	}
	return "ESCAPED (" + strings.SplitN(touched, "\n", 2)[0] + ")"
}
