package outputcache

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func match(n int64, text string) GrepLine { return GrepLine{Line: Line{N: n, Text: text}, Match: true} }
func ctxLine(n int64, text string) GrepLine {
	return GrepLine{Line: Line{N: n, Text: text}}
}

func TestGrep(t *testing.T) {
	text := "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n"
	cases := []struct {
		name string
		data string
		opts GrepOptions
		want GrepResult
	}{
		{"a literal, numbered", text, GrepOptions{Pattern: "eta"},
			GrepResult{Groups: [][]GrepLine{{match(2, "beta")}, {match(6, "zeta"), match(7, "eta"), match(8, "theta")}}, Matches: 4, Shown: 4}},
		{"a literal is not a regular expression", "a.c\nabc\n", GrepOptions{Pattern: "a.c"},
			GrepResult{Groups: [][]GrepLine{{match(1, "a.c")}}, Matches: 1, Shown: 1}},
		{"a regular expression", "a.c\nabc\n", GrepOptions{Pattern: "a.c", Regex: true},
			GrepResult{Groups: [][]GrepLine{{match(1, "a.c"), match(2, "abc")}}, Matches: 2, Shown: 2}},
		{"anchors match at line ends", text, GrepOptions{Pattern: "^[a-d].*a$", Regex: true},
			GrepResult{Groups: [][]GrepLine{{match(1, "alpha"), match(2, "beta")}, {match(4, "delta")}}, Matches: 3, Shown: 3}},
		{"a match never spans lines", "ab\ncd\n", GrepOptions{Pattern: `b\sc`, Regex: true}, GrepResult{}},
		{"a negated class never matches a line break", "ab\ncd\n", GrepOptions{Pattern: `b[^x]c`, Regex: true}, GrepResult{}},
		{"nor does a dot", "ab\ncd\n", GrepOptions{Pattern: `b.c`, Regex: true}, GrepResult{}},
		{"a match found across lines still counts its own line", "xb\ncd\nb c\n", GrepOptions{Pattern: `b\sc`, Regex: true},
			GrepResult{Groups: [][]GrepLine{{match(3, "b c")}}, Matches: 1, Shown: 1}},
		{"case-insensitive through the regex flag", "Error\nerror\nERR\n", GrepOptions{Pattern: "(?i)error", Regex: true},
			GrepResult{Groups: [][]GrepLine{{match(1, "Error"), match(2, "error")}}, Matches: 2, Shown: 2}},
		{"context before and after, merged", text, GrepOptions{Pattern: "gamma", Before: 1, After: 1},
			GrepResult{Groups: [][]GrepLine{{ctxLine(2, "beta"), match(3, "gamma"), ctxLine(4, "delta")}}, Matches: 1, Shown: 1}},
		{"overlapping contexts merge into one group", text, GrepOptions{Pattern: "ta", Before: 1},
			GrepResult{Groups: [][]GrepLine{
				{ctxLine(1, "alpha"), match(2, "beta"), ctxLine(3, "gamma"), match(4, "delta"), ctxLine(5, "epsilon"), match(6, "zeta"), match(7, "eta"), match(8, "theta")},
			}, Matches: 5, Shown: 5}},
		{"context stops at the output's ends", text, GrepOptions{Pattern: "alpha", Before: 3, After: 1},
			GrepResult{Groups: [][]GrepLine{{match(1, "alpha"), ctxLine(2, "beta")}}, Matches: 1, Shown: 1}},
		{"max_matches caps what is shown, not what is counted", text, GrepOptions{Pattern: "a", MaxMatches: 2},
			GrepResult{Groups: [][]GrepLine{{match(1, "alpha"), match(2, "beta")}}, Matches: 7, Shown: 2}},
		{"one match per line however many it holds", "aaaa\n", GrepOptions{Pattern: "a"},
			GrepResult{Groups: [][]GrepLine{{match(1, "aaaa")}}, Matches: 1, Shown: 1}},
		{"an empty-matching regex matches every line", "x\n\ny", GrepOptions{Pattern: "z*", Regex: true},
			GrepResult{Groups: [][]GrepLine{{match(1, "x"), match(2, ""), match(3, "y")}}, Matches: 3, Shown: 3}},
		{"a last line without a newline", "one\ntwo", GrepOptions{Pattern: "two"},
			GrepResult{Groups: [][]GrepLine{{match(2, "two")}}, Matches: 1, Shown: 1}},
		{"no match", text, GrepOptions{Pattern: "omega"}, GrepResult{}},
		{"an empty output", "", GrepOptions{Pattern: "x"}, GrepResult{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := open(t, NewMemoryStore(MemoryOptions{}), c.data)
			got, err := out.Grep(context.Background(), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGrepShowsAWindowOfLongLines(t *testing.T) {
	long := strings.Repeat("a", 5000) + "NEEDLE" + strings.Repeat("b", 5000)
	out := open(t, NewMemoryStore(MemoryOptions{}), "before\n"+long+"\nafter\n")
	got, err := out.Grep(context.Background(), GrepOptions{Pattern: "NEEDLE", LineBytes: 100, Before: 1, After: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := GrepResult{Groups: [][]GrepLine{{
		ctxLine(1, "before"),
		{Line: Line{N: 2, Text: strings.Repeat("a", 33) + "NEEDLE" + strings.Repeat("b", 61), CutBefore: 4967, CutAfter: 4939}, Match: true},
		ctxLine(3, "after"),
	}}, Matches: 1, Shown: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestGrepSearchesLinesLongerThanItsBuffer(t *testing.T) {
	defer func(min, max, overlap int) { grepMinBuf, grepMaxBuf, regexOverlap = min, max, overlap }(grepMinBuf, grepMaxBuf, regexOverlap)
	grepMinBuf, grepMaxBuf, regexOverlap = 1<<10, 4<<10, 64
	// A line of ten windows: the needle sits across the edge of the first
	// window and again further on; the line counts once.
	edge := grepMaxBuf - 3
	line := []byte(strings.Repeat("x", 10*grepMaxBuf))
	copy(line[edge:], "NEEDLE")
	copy(line[7*grepMaxBuf:], "NEEDLE")
	data := "first NEEDLE\n" + string(line) + "\nlast NEEDLE"
	for _, regex := range []bool{false, true} {
		out := open(t, NewMemoryStore(MemoryOptions{}), data)
		got, err := out.Grep(context.Background(), GrepOptions{Pattern: "NEEDLE", Regex: regex, LineBytes: 30})
		if err != nil {
			t.Fatal(err)
		}
		var shown []int64
		for _, l := range got.Groups[0] {
			shown = append(shown, l.N)
		}
		long := got.Groups[0][1]
		if got.Matches != 3 || !cmp.Equal(shown, []int64{1, 2, 3}) ||
			!strings.Contains(long.Text, "NEEDLE") || long.CutBefore > int64(edge) ||
			long.CutBefore+int64(len(long.Text))+long.CutAfter != int64(len(line)) {
			t.Errorf("regex %v: %d matches on lines %v; long line shown as %+v", regex, got.Matches, shown, long.Line)
		}
	}
}

func TestGrepRefusesBadPatterns(t *testing.T) {
	out := open(t, NewMemoryStore(MemoryOptions{}), "x\n")
	cases := []struct {
		name string
		opts GrepOptions
		want string
	}{
		{"an empty pattern", GrepOptions{}, "bad pattern: the pattern is empty"},
		{"a literal with a newline", GrepOptions{Pattern: "a\nb"}, "bad pattern: a literal pattern cannot hold a line break (lines are searched one by one)"},
		{"an invalid regex", GrepOptions{Pattern: "a(b", Regex: true}, "bad pattern: error parsing regexp: missing closing ): `a(b`"},
		{"a regex that needs a line break", GrepOptions{Pattern: `a\nb`, Regex: true}, `bad pattern: pattern contains a literal line break (\n); searches match within one line`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := out.Grep(context.Background(), c.opts)
			if !errors.Is(err, ErrBadPattern) || err.Error() != c.want {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestGrepMatchingEveryLineHoldsTheCap(t *testing.T) {
	out := open(t, NewMemoryStore(MemoryOptions{TempDir: t.TempDir()}), numbered(50000))
	for _, opts := range []GrepOptions{{Pattern: "line"}, {Pattern: ".", Regex: true}} {
		got, err := out.Grep(context.Background(), GrepOptions{Pattern: opts.Pattern, Regex: opts.Regex, MaxMatches: 50, After: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got.Matches != 50000 || got.Shown != 50 || len(got.Groups) != 1 || len(got.Groups[0]) != 52 {
			t.Errorf("%q: %d matches, %d shown, %d groups", opts.Pattern, got.Matches, got.Shown, len(got.Groups))
		}
	}
}

// naiveGrep is the reference: split into lines, test each.
func naiveGrep(data string, pattern string, regex bool) (count int64, first []int64) {
	if data == "" {
		return 0, nil
	}
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	for i, l := range lines {
		hit := strings.Contains(l, pattern)
		if regex {
			hit = regexp.MustCompile("(?m)" + pattern).MatchString(l)
		}
		if hit {
			count++
			if len(first) < 50 {
				first = append(first, int64(i+1))
			}
		}
	}
	return count, first
}

func FuzzGrepAgreesWithALineByLineSearch(f *testing.F) {
	f.Add("alpha\nbeta\n\ngamma", "a", false)
	f.Add("a\nb\nab\n", "a.?b", true)
	f.Add("x\n\n\n", "^$", true)
	f.Add("éé\nàé\n", "é", false)
	f.Fuzz(func(t *testing.T, data, pattern string, regex bool) {
		if pattern == "" || (!regex && strings.ContainsAny(pattern, "\r\n")) {
			return
		}
		if regex {
			if _, err := regexp.Compile("(?m)" + pattern); err != nil {
				return
			}
		}
		out := open(t, NewMemoryStore(MemoryOptions{}), data)
		got, err := out.Grep(context.Background(), GrepOptions{Pattern: pattern, Regex: regex})
		if err != nil {
			t.Fatal(err)
		}
		count, first := naiveGrep(data, pattern, regex)
		var shown []int64
		for _, g := range got.Groups {
			for _, l := range g {
				shown = append(shown, l.N)
			}
		}
		if got.Matches != count || !cmp.Equal(first, shown) {
			t.Errorf("grep %q (regex %v) in %q: %d matches at %v, want %d at %v", pattern, regex, data, got.Matches, shown, count, first)
		}
	})
}

func FuzzReadLinesAgreesWithSplitting(f *testing.F) {
	f.Add("a\nb\nc", int64(2), int64(1))
	f.Add("\n\n", int64(1), int64(5))
	f.Add("ü\n", int64(1), int64(1))
	f.Fuzz(func(t *testing.T, data string, first, limit int64) {
		out := open(t, NewMemoryStore(MemoryOptions{}), data)
		page, err := out.ReadLines(context.Background(), first, limit, 1<<20)
		lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
		if data == "" {
			lines = nil
		}
		if first < 1 || limit < 1 || (first > int64(len(lines)) && !(len(lines) == 0 && first == 1)) {
			if err == nil {
				t.Fatalf("first %d limit %d of %d lines: no error", first, limit, len(lines))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var want []Line
		for n := first; n <= int64(len(lines)) && n < first+limit; n++ {
			want = append(want, Line{N: n, Text: lines[n-1]})
		}
		if !cmp.Equal(want, page.Lines) || page.Total != int64(len(lines)) {
			t.Errorf("%q from %d limit %d:\n%s", data, first, limit, cmp.Diff(want, page.Lines))
		}
	})
}

func FuzzValidRef(f *testing.F) {
	f.Add("out_abcdefghijklmnopqrstuvwxyz")
	f.Add("../../etc/passwd")
	f.Add("out_" + strings.Repeat("2", 26))
	f.Fuzz(func(t *testing.T, s string) {
		if ValidRef(s) && (strings.ContainsAny(s, "/\\.\x00") || len(s) != refLen) {
			t.Errorf("ValidRef(%q) = true for a ref that is not a plain file name", s)
		}
		if err := checkRef(s); (err == nil) != ValidRef(s) {
			t.Errorf("checkRef(%q) = %v disagrees with ValidRef", s, err)
		}
	})
}

func ExampleOutput_Grep() {
	s := NewMemoryStore(MemoryOptions{})
	w, _ := s.Create(context.Background(), Info{Tool: "exec_command"})
	fmt.Fprint(w, "ok 1\nFAIL 2\nok 3\nFAIL 4\n")
	w.Close()
	out, _ := s.Open(context.Background(), w.Ref())
	defer out.Close()
	res, _ := out.Grep(context.Background(), GrepOptions{Pattern: "FAIL", MaxMatches: 1})
	fmt.Println(res.Groups[0][0].N, res.Groups[0][0].Text, res.Matches)
	// Output: 2 FAIL 2 2
}
