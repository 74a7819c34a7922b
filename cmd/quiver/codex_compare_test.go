package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/internal/mcppeers"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// escapeTableEnv names the file TestCompareWithCodexSandbox writes the whole
// table to, in Markdown; set, every attempt is compared
// (scripts/compare-codex-sandbox sets it and puts the table in
// docs/sandbox.md).
const escapeTableEnv = "QUIVER_ESCAPE_TABLE"

// comparedDoc is where the committed table lives.
const comparedDoc = "../../docs/sandbox.md"

// TestCompareWithCodexSandbox runs escape attempts through `quiver sandbox`
// and `codex sandbox` (npm @openai/codex, installed by scripts/mcp-peers)
// side by side, under workspace-write and read-only, each attempt in a new
// workspace started from the user's terminal with the same descriptors
// inherited. Quiver must hold on every attempt; Codex's results are
// recorded, not judged.
//
// The whole table is scripts/compare-codex-sandbox's to make, once, into
// docs/sandbox.md: every attempt through `quiver sandbox` is already
// TestSandboxCommandEscapes's, so the suite runs only the first attempt of
// each class Codex can be compared on, and checks that each row it makes
// is the committed one: the machinery stays honest, and so does the table.
func TestCompareWithCodexSandbox(t *testing.T) {
	codex, codexHome := mcppeers.Codex(t)
	escapes := sandboxtest.LoadEscapes(t, "../../testdata/escapes.txt")
	tablePath := os.Getenv(escapeTableEnv)
	if tablePath == "" {
		escapes = firstOfEachClass(escapes)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	modes := []string{"workspace-write", "read-only"}
	results := make([]map[string][2]string, len(modes)) // attempt name: quiver's and codex's verdicts
	t.Run("modes", func(t *testing.T) {
		for i, mode := range modes {
			t.Run(mode, func(t *testing.T) {
				t.Parallel()
				// Outside /tmp: Codex's workspace-write lets every process write there.
				out, err := os.MkdirTemp(home, "quiver-compare-*")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(out) })
				w := sandboxtest.NewWatchIn(t, out)
				quiverArgs := []string{"--write-scope", mode, "sandbox", "--"}
				codexArgs := []string{"CODEX_HOME=" + codexHome, codex, "sandbox", "-c", `sandbox_mode="` + mode + `"`, "--"}
				mustStart(t, w, nil, quiverBin, quiverArgs...)
				mustStart(t, w, nil, "env", codexArgs...)
				results[i] = map[string][2]string{}
				for _, e := range escapes {
					if e.Class == sandboxtest.ClassClassifier {
						continue
					}
					ws := w.Workspace(t, e)
					r := runSandboxed(t, w, ws, e, quiverBin, quiverArgs...)
					quiver := w.TouchedIn(t, e, ws, r.stdout+r.stderr)
					if quiver != "" {
						t.Errorf("quiver %s: class %d, %s: %s (exit %d)", mode, e.Class, e.Name, quiver, r.code)
					}
					ws = w.Workspace(t, e)
					r = runSandboxed(t, w, ws, e, "env", codexArgs...)
					results[i][e.Name] = [2]string{quiver, w.TouchedIn(t, e, ws, r.stdout+r.stderr)}
				}
			})
		}
	})
	table := escapeTable(escapes, modes, results)
	t.Log("\n" + table)
	if tablePath != "" {
		if err := os.WriteFile(tablePath, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	doc, err := os.ReadFile(comparedDoc)
	if err != nil {
		t.Fatal(err)
	}
	for row := range strings.Lines(table) {
		if strings.HasPrefix(row, "| "+fmt.Sprint(sandboxtest.ClassClassifier)+" ") || strings.HasPrefix(row, "|---") || strings.HasPrefix(row, "| Class") {
			continue
		}
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/sandbox.md does not hold this row as it is now (run scripts/compare-codex-sandbox):\n%s", row)
		}
	}
}

// firstOfEachClass is the first attempt of each class that Codex can be
// compared on (not 8, which is exec_command's classifier, nor 10, Quiver's
// config).
func firstOfEachClass(escapes []sandboxtest.Escape) []sandboxtest.Escape {
	var out []sandboxtest.Escape
	seen := map[int]bool{}
	for _, e := range escapes {
		if !seen[e.Class] && e.Class != sandboxtest.ClassClassifier && e.Class != sandboxtest.ClassProtectedLink {
			seen[e.Class] = true
			out = append(out, e)
		}
	}
	return out
}

// escapeTable is the Markdown table of the results: one row per attempt,
// "held", or under which modes it got through and its first effect.
// Classes 8 and 10 are Quiver's own (its classifier, its config): Codex has
// nothing to compare. Class 8 means something only through exec_command,
// where TestSandboxEscapes holds Quiver to it.
func escapeTable(escapes []sandboxtest.Escape, modes []string, results []map[string][2]string) string {
	var b strings.Builder
	b.WriteString("| Class | Attempt | Quiver | Codex 0.169.0 |\n|---|---|---|---|\n")
	for _, e := range escapes {
		if e.Class == sandboxtest.ClassClassifier {
			fmt.Fprintf(&b, "| %d | %s | held by `exec_command` (TestSandboxEscapes) | not comparable: no classifier |\n", e.Class, e.Name)
			continue
		}
		var cells [2]string
		for engine := range cells {
			cells[engine] = verdict(modes, results, e.Name, engine)
		}
		if e.Class == sandboxtest.ClassProtectedLink {
			cells[1] = "not comparable: Quiver's config"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", e.Class, e.Name, cells[0], cells[1])
	}
	return b.String()
}

// verdict is one cell: "held", or "through" with the modes and the first
// effect seen (its first words: paths and diffs left out).
func verdict(modes []string, results []map[string][2]string, name string, engine int) string {
	var through, effects []string
	for i, mode := range modes {
		if what := results[i][name][engine]; what != "" {
			through = append(through, mode)
			effect, _, _ := strings.Cut(what, "(")
			effect, _, _ = strings.Cut(effect, ";")
			effects = append(effects, strings.TrimSuffix(strings.TrimSpace(effect), ":"))
		}
	}
	switch {
	case len(through) == 0:
		return "held"
	case len(through) == len(modes):
		return "**through** (both modes: " + effects[0] + ")"
	}
	return "**through** (" + strings.Join(through, ", ") + ": " + effects[0] + ")"
}
