package outputcache

import (
	"bufio"
	"context"
	"io"
	"os"
	"strconv"
	"testing"
)

// BenchmarkCacheReadDeep reads 100 lines at line 10,000,000 of a stored
// output of 10,000,100 lines (about 150 MB in a dir store), as
// tool_output_cache does: open the ref, seek through the index, read, close.
// The goal is under 10 ms per read.
func BenchmarkCacheReadDeep(b *testing.B) {
	s, err := NewDirStore(DirOptions{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ref := writeNumbered(b, s, 10_000_100)
	ctx := context.Background()
	for b.Loop() {
		out, err := s.Open(ctx, ref)
		if err != nil {
			b.Fatal(err)
		}
		page, err := out.ReadLines(ctx, 10_000_000, 100, 64<<10)
		out.Close()
		if err != nil || len(page.Lines) != 100 || page.Lines[0].Text != "line 10000000 of the output" {
			b.Fatalf("read %d lines, first %+v, %v", len(page.Lines), page.Lines[0], err)
		}
	}
}

// BenchmarkGrepLiteral greps a stored output of 2,000,000 lines (about 60
// MB) for a literal found on one line, counting all matches as
// tool_output_cache_grep does.
func BenchmarkGrepLiteral(b *testing.B) {
	s, err := NewDirStore(DirOptions{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ref := writeNumbered(b, s, 2_000_000)
	benchGrep(b, s, ref, "line 1999999 of")
}

// BenchmarkGrepFile greps the file named by $QUIVER_BENCH_FILE for
// $QUIVER_BENCH_PATTERN, after storing it in a dir store under
// $QUIVER_BENCH_DIR (or a temporary one). scripts/bench-cache-grep runs it
// on a 1 GB file beside `rg -c`; without the variables it does not run.
func BenchmarkGrepFile(b *testing.B) {
	path, pattern := os.Getenv("QUIVER_BENCH_FILE"), os.Getenv("QUIVER_BENCH_PATTERN")
	if path == "" || pattern == "" {
		b.Skip("set QUIVER_BENCH_FILE and QUIVER_BENCH_PATTERN (scripts/bench-cache-grep does)")
	}
	dir := os.Getenv("QUIVER_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	s, err := NewDirStore(DirOptions{Dir: dir, MaxBytes: 8 << 30})
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, err := s.Create(context.Background(), Info{Tool: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(w, f); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	benchGrep(b, s, w.Ref(), pattern)
}

func benchGrep(b *testing.B, s Store, ref, pattern string) {
	ctx := context.Background()
	out, err := s.Open(ctx, ref)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	b.SetBytes(out.Size)
	var res GrepResult
	for b.Loop() {
		res, err = out.Grep(ctx, GrepOptions{Pattern: pattern})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Matches), "matches")
}

// writeNumbered stores n lines "line I of the output".
func writeNumbered(b *testing.B, s Store, n int) string {
	w, err := s.Create(context.Background(), Info{Tool: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	for i := 1; i <= n; i++ {
		line = append(strconv.AppendInt(append(line[:0], "line "...), int64(i), 10), " of the output\n"...)
		bw.Write(line)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return w.Ref()
}
