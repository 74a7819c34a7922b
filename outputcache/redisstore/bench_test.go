package redisstore_test

import (
	"bufio"
	"context"
	"strconv"
	"testing"

	"github.com/quiverkit/quiver/internal/redistest"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/outputcache/redisstore"
)

// BenchmarkReadDeep1GB reads 100 lines, 100 lines before the end of a
// 1 GiB output stored in Redis (a redis-server of its own on a Unix
// socket), as tool_output_cache does: open the ref (its meta and line
// index), seek through the index, fetch the chunks the lines lie in,
// close. Storing the gigabyte is most of the run, once; the figure is the
// read. It needs about 1.2 GB of memory for Redis.
func BenchmarkReadDeep1GB(b *testing.B) {
	const lineBytes = 50
	lines := (1 << 30) / lineBytes
	srv := redistest.Start(b, false)
	s, err := redisstore.New(redisstore.Options{URL: srv.URL(), MaxBytes: 2 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	w, err := s.Create(ctx, outputcache.Info{Tool: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	for i := 1; i <= lines; i++ {
		line = numberedLine(line, i, lineBytes)
		bw.Write(line)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	first := int64(lines - 199)
	want := string(numberedLine(nil, int(first), lineBytes)[:lineBytes-1])
	b.ResetTimer()
	for b.Loop() {
		out, err := s.Open(ctx, w.Ref())
		if err != nil {
			b.Fatal(err)
		}
		page, err := out.ReadLines(ctx, first, 100, 64<<10)
		out.Close()
		if err != nil || len(page.Lines) != 100 || page.Lines[0].Text != want {
			b.Fatalf("read %d lines, %v: %+v", len(page.Lines), err, page.Lines[:min(1, len(page.Lines))])
		}
	}
	b.ReportMetric(float64(lines), "lines-stored")
}

// numberedLine is "line I of the output" padded with dots to n bytes,
// newline included.
func numberedLine(buf []byte, i, n int) []byte {
	buf = strconv.AppendInt(append(buf[:0], "line "...), int64(i), 10)
	buf = append(buf, " of the output "...)
	for len(buf) < n-1 {
		buf = append(buf, '.')
	}
	return append(buf, '\n')
}
