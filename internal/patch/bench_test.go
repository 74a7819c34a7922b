package patch

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/workspace"
)

// benchInput returns a file of n distinct lines and a Begin Patch patch
// with h hunks spread evenly over it, each changing one line between three
// lines of context above and below.
func benchInput(n, h int) (file, patch string) {
	var f, p strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&f, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	p.WriteString("*** Begin Patch\n*** Update File: big.txt\n")
	step := n / h
	for k := 0; k < h; k++ {
		at := k*step + step/2
		p.WriteString("@@\n")
		for i := at - 3; i < at; i++ {
			fmt.Fprintf(&p, " line %d: the quick brown fox jumps over the lazy dog\n", i)
		}
		fmt.Fprintf(&p, "-line %d: the quick brown fox jumps over the lazy dog\n", at)
		fmt.Fprintf(&p, "+line %d: changed by hunk %d\n", at, k)
		for i := at + 1; i <= at+3; i++ {
			fmt.Fprintf(&p, " line %d: the quick brown fox jumps over the lazy dog\n", i)
		}
	}
	p.WriteString("*** End Patch\n")
	return f.String(), p.String()
}

var benchSizes = []struct{ hunks, lines int }{{1000, 100_000}, {2000, 200_000}}

// BenchmarkApplyPatch measures the engine — parse, locate every hunk, and
// stream the new content — on a file of 100,000 lines with 1,000 hunks and
// on one twice as large with twice the hunks. Cost per byte (MB/s) stays
// flat: each hunk is searched from where the previous one ended.
func BenchmarkApplyPatch(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("hunks=%d/lines=%d", sz.hunks, sz.lines), func(b *testing.B) {
			file, text := benchInput(sz.lines, sz.hunks)
			ws := benchWorkspace(b, file)
			compares := lineCompares(b, file, text)
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p, err := Parse(text)
				if err != nil {
					b.Fatal(err)
				}
				pl, err := Prepare(context.Background(), ws, p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, pl.files["big.txt"].now.reader()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(compares, "line-compares/op")
		})
	}
}

// BenchmarkApplyPatchToDisk is [BenchmarkApplyPatch] with the commit: the
// atomic write (temporary file, fsync, rename) of the new content. Each
// iteration patches a fresh copy of the file.
func BenchmarkApplyPatchToDisk(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("hunks=%d/lines=%d", sz.hunks, sz.lines), func(b *testing.B) {
			file, text := benchInput(sz.lines, sz.hunks)
			ws := benchWorkspace(b, file)
			p, err := Parse(text)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(file)))
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				if err := os.WriteFile(filepath.Join(ws.Dir(), "big.txt"), []byte(file), 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := Apply(context.Background(), ws, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchWorkspace(b *testing.B, file string) *workspace.Workspace {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(file), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

// BenchmarkApplyPatchDrifted is the slow path: every context line of every
// hunk differs from the file in trailing whitespace, so each hunk's exact
// search runs to the end of the file before the looser one finds it. This
// cost grows with hunks × lines; it is the price of preferring an exact
// match anywhere below over a loose one nearby.
func BenchmarkApplyPatchDrifted(b *testing.B) {
	for _, sz := range []struct{ hunks, lines int }{{100, 100_000}, {200, 100_000}} {
		b.Run(fmt.Sprintf("hunks=%d/lines=%d", sz.hunks, sz.lines), func(b *testing.B) {
			file, text := benchInput(sz.lines, sz.hunks)
			file = strings.ReplaceAll(file, "\n", " \n")
			ws := benchWorkspace(b, file)
			p, err := Parse(text)
			if err != nil {
				b.Fatal(err)
			}
			compares := lineCompares(b, file, text)
			b.SetBytes(int64(len(file)))
			b.ResetTimer()
			for b.Loop() {
				if _, err := Prepare(context.Background(), ws, p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(compares, "line-compares/op")
		})
	}
}

// lineCompares returns how many line comparisons applying text to file
// takes: a measure of the search's work that, unlike time, does not depend
// on what else the machine is doing.
func lineCompares(b *testing.B, file, text string) float64 {
	b.Helper()
	p, err := Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	t := newText([]byte(file))
	if _, _, _, err := applyHunks(t, p.Files[0].Hunks); err != nil {
		b.Fatal(err)
	}
	return float64(t.compares)
}
