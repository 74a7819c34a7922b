package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// benchmarks compare, in process, the rg-backed tool with rg itself run to
// the same end (all matches, line numbers), over the Go distribution's
// source: the difference is what parsing rg's output, the ignore filter and
// the rendering cost.
func benchWorkspace(b *testing.B) *workspace.Workspace {
	ws, err := workspace.Open(filepath.Join(goroot(b), "src"), workspace.Options{})
	if err != nil {
		b.Skip(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

func benchTool(b *testing.B, name, args string) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg is not installed")
	}
	ws := benchWorkspace(b)
	list, _ := New(Options{}).Tools(b.Context())
	var tl *tool.Tool
	for _, t := range list {
		if t.Name == name {
			tl = t
		}
	}
	for b.Loop() {
		res, err := callB(b, ws, tl, args)
		if err != nil {
			b.Fatal(err)
		}
		_ = res.String()
	}
}

func benchRaw(b *testing.B, prog string, args ...string) {
	path, err := exec.LookPath(prog)
	if err != nil {
		b.Skip(err)
	}
	dir := filepath.Join(goroot(b), "src")
	for b.Loop() {
		cmd := exec.Command(path, args...)
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRipgrepBackendLiteral(b *testing.B) {
	benchTool(b, "grep_search", `{"pattern":"func New","fixed_strings":true,"max_results":10000}`)
}

func BenchmarkRipgrepRawLiteral(b *testing.B) { benchRaw(b, "rg", "-n", "-F", "func New", ".") }

func BenchmarkRipgrepBackendFiles(b *testing.B) {
	benchTool(b, "grep_search", `{"pattern":"func New","fixed_strings":true,"output_mode":"files","max_results":10000}`)
}

func BenchmarkRipgrepRawFiles(b *testing.B) { benchRaw(b, "rg", "-l", "-F", "func New", ".") }

func BenchmarkFdBackendGlob(b *testing.B) {
	benchTool(b, "glob_search", `{"pattern":"**/*_test.go","max_results":10000}`)
}

func BenchmarkFdRawGlob(b *testing.B) { benchRaw(b, "fdfind", "-g", "**/*_test.go") }

// goroot is the Go distribution the go command on PATH uses (the tree
// scripts/bench-search searches).
func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}
