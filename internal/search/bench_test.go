package search

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/workspace"
)

// The benchmarks search the Go distribution's own source, the reference
// tree of scripts/bench-search: real code nobody here wrote.
func goSrc(b *testing.B) *workspace.Workspace {
	b.Helper()
	ws, err := workspace.Open(goroot(b)+"/src", workspace.Options{})
	if err != nil {
		b.Skipf("GOROOT/src: %v", err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

func benchGrep(b *testing.B, pattern string, opts PatternOptions, mode Mode) {
	ws := goSrc(b)
	m, err := Compile(pattern, opts)
	if err != nil {
		b.Fatal(err)
	}
	var st GrepStats
	for b.Loop() {
		c := NewCollector(mode, 100, 0)
		st, err = Grep(context.Background(), ws, GrepRequest{Matcher: m, Start: "."}, c)
		if err != nil {
			b.Fatal(err)
		}
		if c.Result().TotalFiles == 0 {
			b.Fatal("no match")
		}
	}
	b.ReportMetric(float64(st.Searched), "files")
}

func BenchmarkGrepLiteral(b *testing.B) {
	benchGrep(b, "func New", PatternOptions{Fixed: true}, ModeContent)
}

func BenchmarkGrepRegexp(b *testing.B) {
	benchGrep(b, `func\s+New\w*\(`, PatternOptions{}, ModeContent)
}

func BenchmarkGrepIgnoreCase(b *testing.B) {
	benchGrep(b, "context.context", PatternOptions{Fixed: true, IgnoreCase: true}, ModeContent)
}

func BenchmarkGrepFiles(b *testing.B) {
	benchGrep(b, "func New", PatternOptions{Fixed: true}, ModeFiles)
}

func BenchmarkGrepAlternation(b *testing.B) {
	benchGrep(b, `TODO|FIXME|XXX`, PatternOptions{}, ModeContent)
}

func BenchmarkGrepNoLiteral(b *testing.B) {
	benchGrep(b, `[A-Z]{3}[0-9]{4}`, PatternOptions{}, ModeCount)
}

func BenchmarkWalk(b *testing.B) {
	ws := goSrc(b)
	for b.Loop() {
		_, err := Walk(context.Background(), ws, ".", WalkOptions{}, func() VisitFunc {
			return func(*Entry) error { return nil }
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGlob(b *testing.B) {
	ws := goSrc(b)
	for b.Loop() {
		c := NewGlobCollector(100)
		if _, err := Glob(context.Background(), ws, GlobRequest{Base: ".", Pattern: "**/*_test.go"}, c); err != nil {
			b.Fatal(err)
		}
		if c.Result().Total == 0 {
			b.Fatal("no match")
		}
	}
}

// goroot is the Go distribution the go command on PATH uses (the tree
// scripts/bench-search searches).
func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out))
}
