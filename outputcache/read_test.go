package outputcache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// numbered returns n lines "line 1" ... "line n", each ending in a newline.
func numbered(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

func open(t testing.TB, s Store, data string) *Output {
	t.Helper()
	out, err := s.Open(context.Background(), put(t, s, data))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	return out
}

func lines(from, to int64) []Line {
	var out []Line
	for n := from; n <= to; n++ {
		out = append(out, Line{N: n, Text: fmt.Sprintf("line %d", n)})
	}
	return out
}

func TestReadLines(t *testing.T) {
	big := numbered(3*IndexEvery + 10)
	cases := []struct {
		name         string
		data         string
		first, limit int64
		maxBytes     int
		want         Page
	}{
		{"from the start", numbered(5), 1, 3, 1000, Page{Lines: lines(1, 3), Total: 5, Next: 4}},
		{"to the end", numbered(5), 4, 10, 1000, Page{Lines: lines(4, 5), Total: 5}},
		{"exactly the last line", numbered(5), 5, 1, 1000, Page{Lines: lines(5, 5), Total: 5}},
		{"past an indexed line", big, 2*IndexEvery + 1, 3, 1000,
			Page{Lines: lines(2*IndexEvery+1, 2*IndexEvery+3), Total: 3*IndexEvery + 10, Next: 2*IndexEvery + 4}},
		{"just before an indexed line", big, IndexEvery - 1, 3, 1000,
			Page{Lines: lines(IndexEvery-1, IndexEvery+1), Total: 3*IndexEvery + 10, Next: IndexEvery + 2}},
		{"in the last indexed stretch", big, 3*IndexEvery + 9, 5, 1000,
			Page{Lines: lines(3*IndexEvery+9, 3*IndexEvery+10), Total: 3*IndexEvery + 10}},
		{"stops at the byte limit before a line that does not fit", numbered(5), 1, 5, 14,
			Page{Lines: lines(1, 2), Total: 5, Next: 3}},
		{"a last line without a newline", "a\nb", 2, 5, 1000, Page{Lines: []Line{{N: 2, Text: "b"}}, Total: 2}},
		{"empty lines", "\n\n\n", 1, 5, 1000, Page{Lines: []Line{{N: 1}, {N: 2}, {N: 3}}, Total: 3}},
		{"an empty output", "", 1, 5, 1000, Page{}},
		{"a first line longer than the limit is cut", strings.Repeat("x", 100) + "\nnext\n", 1, 5, 10,
			Page{Lines: []Line{{N: 1, Text: strings.Repeat("x", 10), CutAfter: 90}}, Total: 2, Next: 2}},
		{"a cut never splits a character", "ééééé\n", 1, 1, 5,
			Page{Lines: []Line{{N: 1, Text: "éé", CutAfter: 6}}, Total: 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := open(t, NewMemoryStore(MemoryOptions{}), c.data)
			got, err := out.ReadLines(context.Background(), c.first, c.limit, c.maxBytes)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadLinesRefusesBadRanges(t *testing.T) {
	out := open(t, NewMemoryStore(MemoryOptions{}), numbered(10))
	cases := []struct {
		name         string
		first, limit int64
		want         string
	}{
		{"offset past the end", 11, 5, "offset is past the end of the output: line 11 asked for, the output has 10 lines"},
		{"offset zero", 0, 5, "first line 0: lines are numbered from 1"},
		{"negative offset", -3, 5, "first line -3: lines are numbered from 1"},
		{"negative limit", 1, -1, "limit -1: must be at least 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := out.ReadLines(context.Background(), c.first, c.limit, 1000)
			if err == nil || err.Error() != c.want {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	if _, err := out.ReadLines(context.Background(), 11, 5, 1000); !errors.Is(err, ErrPastEnd) {
		t.Errorf("past the end: %v is not ErrPastEnd", err)
	}
}

func TestReadLinesHonoursCancellation(t *testing.T) {
	out := open(t, NewMemoryStore(MemoryOptions{}), numbered(10))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := out.ReadLines(ctx, 1, 5, 1000); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
