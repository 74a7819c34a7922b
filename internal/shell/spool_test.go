package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/outputcache"
)

type memSink struct {
	bytes.Buffer
	closed bool
}

func (m *memSink) Close() error { m.closed = true; return nil }

var smallBudget = outputcache.Split{HeadBytes: 100, TailBytes: 50, HeadLines: 10, TailLines: 5}

// feed writes s to sp in chunks of n bytes.
func feed(sp *Spool, s string, n int) {
	for len(s) > 0 {
		k := min(n, len(s))
		sp.Write([]byte(s[:k]))
		s = s[k:]
	}
}

func TestSpoolSmallOutputStaysInMemory(t *testing.T) {
	opened := false
	sp := NewSpool(smallBudget, func() (io.WriteCloser, error) { opened = true; return &memSink{}, nil })
	feed(sp, "one\ntwo\n", 3)
	v := sp.View()
	if opened || v.Truncated || v.Stored || v.Head != "one\ntwo\n" || v.TotalBytes != 8 {
		t.Errorf("view %+v, sink opened %v", v, opened)
	}
}

func TestSpoolLargeOutputGoesWholeToTheSink(t *testing.T) {
	var whole strings.Builder
	for i := range 500 {
		fmt.Fprintf(&whole, "line %03d\n", i)
	}
	for _, chunk := range []int{1, 7, 64, 100000} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			sink := &memSink{}
			sp := NewSpool(smallBudget, func() (io.WriteCloser, error) { return sink, nil })
			feed(sp, whole.String(), chunk)
			if err := sp.Close(); err != nil {
				t.Fatal(err)
			}
			if sink.String() != whole.String() || !sink.closed {
				t.Fatalf("sink holds %d bytes (closed %v), want the whole %d", sink.Len(), sink.closed, whole.Len())
			}
			v := sp.View()
			if !v.Truncated || !v.Stored {
				t.Fatalf("view %+v", v)
			}
			if !strings.HasPrefix(whole.String(), v.Head) || !strings.HasSuffix(whole.String(), v.Tail) {
				t.Errorf("head %q / tail %q are not the output's", v.Head, v.Tail)
			}
			if v.Head != "line 000\nline 001\nline 002\nline 003\nline 004\nline 005\nline 006\nline 007\nline 008\nline 009\n" {
				t.Errorf("head = %q, want the first 10 lines", v.Head)
			}
			if v.Tail != "line 495\nline 496\nline 497\nline 498\nline 499\n" {
				t.Errorf("tail = %q, want the last 5 lines", v.Tail)
			}
			if got := int64(len(v.Head)+len(v.Tail)) + v.OmittedBytes; got != int64(whole.Len()) {
				t.Errorf("head+tail+omitted = %d bytes, output is %d", got, whole.Len())
			}
			if v.OmittedLines != 485 {
				t.Errorf("omitted lines = %d, want 485", v.OmittedLines)
			}
		})
	}
}

func TestSpoolManyShortLinesSpillByLineCount(t *testing.T) {
	sink := &memSink{}
	sp := NewSpool(smallBudget, func() (io.WriteCloser, error) { return sink, nil })
	in := strings.Repeat("x\n", 20) // 40 bytes: within the byte budget, over the line budget
	feed(sp, in, 5)
	sp.Close()
	if v := sp.View(); !v.Truncated || !v.Stored || sink.String() != in {
		t.Errorf("view %+v, sink %q", v, sink.String())
	}
}

func TestSpoolSinkFailureKeepsHeadAndTail(t *testing.T) {
	sp := NewSpool(smallBudget, func() (io.WriteCloser, error) { return nil, errors.New("disk full") })
	feed(sp, strings.Repeat("abcdefghij", 100), 30)
	v := sp.View()
	if !v.Truncated || v.Stored || v.StoreErr == nil || v.Head == "" || v.Tail == "" {
		t.Errorf("view %+v", v)
	}
}

func TestSpoolCutsAtCharacterBoundaries(t *testing.T) {
	sp := NewSpool(outputcache.Split{HeadBytes: 10, TailBytes: 10, HeadLines: 100, TailLines: 100}, nil)
	feed(sp, strings.Repeat("é", 50), 3) // two bytes each, no newline
	v := sp.View()
	if strings.Contains(v.Head, `\x`) || strings.Contains(v.Tail, `\x`) {
		t.Errorf("a character was split: head %q tail %q", v.Head, v.Tail)
	}
}

func TestViewText(t *testing.T) {
	diskFull := errors.New("disk full")
	tests := []struct {
		name string
		view View
		kept outputcache.Kept
		want string
	}{
		{"whole", View{Head: "a\nb\n"}, outputcache.Kept{Ref: "out_x"}, "a\nb\n"},
		{"head and tail around the marker", View{Head: "a\n", Tail: "z\n", Truncated: true, OmittedLines: 24, OmittedBytes: 48},
			outputcache.Kept{Ref: "out_x"},
			"a\n[... 24 lines (48 bytes) omitted; full output: ref=out_x, read it with tool_output_cache or search it with tool_output_cache_grep ...]\nz\n"},
		{"a head cut inside a line ends before the marker", View{Head: "abc", Tail: "xyz", Truncated: true, OmittedLines: -1, OmittedBytes: 9},
			outputcache.Kept{File: "exec-1.log"},
			"abc\n[... 9 bytes omitted; full output in the file exec-1.log, for the host: commands cannot read it ...]\nxyz"},
		{"the spool's own failure says why", View{Head: "a\n", Tail: "z", Truncated: true, OmittedLines: 1, OmittedBytes: 2, StoreErr: diskFull},
			outputcache.Kept{Err: errors.New("close failed")},
			"a\n[... 1 lines (2 bytes) omitted; the full output could not be kept: disk full ...]\nz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.view.Text(tt.kept); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// Last is the end of the output so far within its bounds: across head and
// tail while both are whole, from the tail alone once bytes between them
// were dropped, at a line boundary when that keeps half of it.
func TestSpoolLast(t *testing.T) {
	for _, tt := range []struct {
		name, in     string
		lines, bytes int
		want         string
	}{
		{"empty", "", 10, 100, ""},
		{"all of a short output", "a\nb\n", 10, 100, "a\nb\n"},
		{"the last lines", "1\n2\n3\n4\n", 2, 100, "3\n4\n"},
		{"across head and tail", strings.Repeat("h", 99) + "\nline\n", 10, 8, "line\n"},
		{"tail only once the middle is gone", strings.Repeat("m\n", 200) + "end", 3, 30, "m\nm\nend"},
		{"a long line cut at a character", strings.Repeat("é", 40), 5, 9, "éééé"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp := NewSpool(smallBudget, func() (io.WriteCloser, error) { return &memSink{}, nil })
			feed(sp, tt.in, 7)
			if got := sp.Last(tt.lines, tt.bytes); got != tt.want {
				t.Errorf("Last(%d, %d) = %q, want %q", tt.lines, tt.bytes, got, tt.want)
			}
		})
	}
}
