package search

import (
	"context"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// textFile is an in-memory file for the searcher.
type textFile struct {
	io.Reader
	size int64
}

func (f textFile) Size() int64  { return f.size }
func (f textFile) Close() error { return nil }

// searchText runs one worker's searcher over text. window is the largest
// file read whole and the stream window; halfReads makes every read return
// half of what was asked.
func searchText(t testing.TB, m *Matcher, text string, mode Mode, context, limit, window int, halfReads bool) (FileResult, bool) {
	t.Helper()
	c := NewCollector(mode, limit, context)
	s := newFileSearcher(m, c)
	s.maxWhole = window
	var r io.Reader = strings.NewReader(text)
	if halfReads {
		r = iotest.HalfReader(r)
	}
	res, binary, err := s.search(contextBackground(), "f", textFile{r, int64(len(text))})
	if err != nil {
		t.Fatal(err)
	}
	return res, binary
}

func contextBackground() context.Context { return context.Background() }

// naiveGrep is the reference for one file without NUL bytes: every line
// tested on its own; context lines merged; the first limit matches kept
// with the after-context of the last one up to the next match. A long
// matching line is shown around its match, except one that does not fit
// the stream window (window, when the file does not fit it either), which
// is shown by its head.
func naiveGrep(t testing.TB, m *Matcher, text string, ctxLines, limit, window int) FileResult {
	var lines []string
	if text != "" {
		lines = strings.Split(text, "\n")
		if strings.HasSuffix(text, "\n") {
			lines = lines[:len(lines)-1]
		}
	}
	sc := m.scanner()
	isMatch := make([]bool, len(lines))
	res := FileResult{Path: "f"}
	for i, l := range lines {
		isMatch[i] = sc.lineMatches([]byte(l))
		if isMatch[i] {
			res.Count++
		}
	}
	show := make([]int, len(lines)) // 0 none, 1 context, 2 match
	kept, stopAt := 0, len(lines)
	for i := range lines {
		if !isMatch[i] {
			continue
		}
		if kept == limit {
			stopAt = i
			break
		}
		kept++
		show[i] = 2
		for j := max(0, i-ctxLines); j < i; j++ {
			if show[j] == 0 {
				show[j] = 1
			}
		}
		for j := i + 1; j <= i+ctxLines && j < len(lines) && !isMatch[j]; j++ {
			show[j] = 1
		}
	}
	streamed := len(text) >= window
	for i := 0; i < stopAt; i++ {
		if show[i] == 0 {
			continue
		}
		l := []byte(lines[i])
		shown := ClipLine(l)
		switch {
		case streamed && len(l) >= window:
			if !strings.HasSuffix(shown, "…") {
				shown += "…"
			}
		case show[i] == 2:
			shown = sc.clipMatch(l)
		}
		res.Lines = append(res.Lines, Line{Num: i + 1, Text: shown, Context: show[i] == 1})
	}
	return res
}

// randomText makes lines of mixed lengths, some far longer than a window,
// with the needle here and there.
func randomText(r *rand.Rand, lines int, needle string) string {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		n := r.IntN(80)
		switch r.IntN(40) {
		case 0:
			n = 3000 + r.IntN(5000) // longer than the small windows
		case 1:
			n = 0
		}
		for j := 0; j < n; j++ {
			b.WriteByte("abcdefgh  xyz"[r.IntN(13)])
			if r.IntN(200) == 0 {
				b.WriteString(needle)
			}
		}
		if r.IntN(10) == 0 {
			b.WriteString(needle)
		}
		if r.IntN(30) == 0 {
			b.WriteString("\r")
		}
		b.WriteByte('\n')
	}
	if r.IntN(2) == 0 {
		b.WriteString("tail " + needle)
	}
	return b.String()
}

func TestFileSearchAgreesWithNaiveLineByLine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m, err := Compile("needle", PatternOptions{Fixed: true})
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 40; round++ {
		text := randomText(r, 50+r.IntN(400), "needle")
		ctxLines := r.IntN(4)
		limit := 1 + r.IntN(30)
		for _, window := range []int{maxWhole, 1 << 10, 2 << 10, 4096 + 17} {
			for _, half := range []bool{false, true} {
				want := naiveGrep(t, m, text, ctxLines, limit, window)
				got, _ := searchText(t, m, text, ModeContent, ctxLines, limit, window, half)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("round %d, window %d, half reads %v, context %d, limit %d (-naive +searcher):\n%s", round, window, half, ctxLines, limit, diff)
				}
			}
		}
	}
}

func TestFileSearchStreamsLargeFilesWithRipgrepBlocks(t *testing.T) {
	// Lines short enough for ripgrep's blocks: the stream follows them.
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for b.Len() < 3<<20 {
		b.WriteString(strings.Repeat("x", r.IntN(100)))
		if r.IntN(50) == 0 {
			b.WriteString("needle")
		}
		b.WriteByte('\n')
	}
	text := b.String()
	m, _ := Compile("needle", PatternOptions{Fixed: true})
	want := naiveGrep(t, m, text, 2, 50, 512<<10)
	got, _ := searchText(t, m, text, ModeContent, 2, 50, 512<<10, false)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-naive +stream):\n%s", diff)
	}
}

func TestFileSearchModes(t *testing.T) {
	m, _ := Compile("needle", PatternOptions{Fixed: true})
	text := "a needle\nb\nneedle needle\nc\n"
	files, _ := searchText(t, m, text, ModeFiles, 0, 10, maxWhole, false)
	if files.Count != 1 || files.Lines != nil {
		t.Errorf("files mode: %+v, want count 1 and no lines", files)
	}
	count, _ := searchText(t, m, text, ModeCount, 0, 10, maxWhole, false)
	if count.Count != 2 || count.Lines != nil {
		t.Errorf("count mode: %+v, want 2 matching lines and no lines", count)
	}
}

func TestFileSearchClipsLongLinesAroundTheMatch(t *testing.T) {
	m, _ := Compile("needle", PatternOptions{Fixed: true})
	tests := []struct {
		name, line, want string
	}{
		{"match near the start: the head", "a needle " + strings.Repeat("é", 600),
			"a needle " + strings.Repeat("é", MaxLineRunes-9) + "…"},
		{"match at the end: the tail", strings.Repeat("é", 600) + " needle",
			"…" + strings.Repeat("é", MaxLineRunes-7) + " needle"},
		{"match in the middle: cut on both sides", strings.Repeat("x", 1000) + "needle" + strings.Repeat("y", 1000),
			"…" + strings.Repeat("x", clipLead) + "needle" + strings.Repeat("y", MaxLineRunes-clipLead-6) + "…"},
	}
	for _, tt := range tests {
		other := strings.Replace(tt.line, "needle", "noodle", 1)
		res, _ := searchText(t, m, tt.line+"\n"+other+"\n", ModeContent, 1, 10, maxWhole, false)
		if len(res.Lines) != 2 || res.Lines[0].Text != tt.want {
			t.Errorf("%s: got %+v", tt.name, res.Lines)
			continue
		}
		// A context line is shown by its head.
		if head := ClipLine([]byte(other)); res.Lines[1].Text != head {
			t.Errorf("%s: context line %q, want the head", tt.name, res.Lines[1].Text)
		}
	}
}

func TestHugeLineIsSearchedInBoundedMemory(t *testing.T) {
	// A 64 MiB file with no line break, searched through a 64 KiB window:
	// the searcher never holds more than the window.
	const size = 64 << 20
	m, _ := Compile("needle", PatternOptions{Fixed: true})
	c := NewCollector(ModeContent, 100, 0)
	s := newFileSearcher(m, c)
	s.maxWhole = 64 << 10
	r := io.MultiReader(io.LimitReader(repeatReader('x'), size/2), strings.NewReader("needle"), io.LimitReader(repeatReader('y'), size/2))
	res, _, err := s.search(context.Background(), "huge", textFile{r, size + 6})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 1 || len(res.Lines) != 1 || res.Lines[0].Num != 1 || !strings.HasPrefix(res.Lines[0].Text, "xxxx") {
		t.Errorf("got %+v, want line 1 matched and shown by its head", res)
	}
	if cap(s.buf) > 64<<10 {
		t.Errorf("buffer grew to %d bytes for a 64 KiB window", cap(s.buf))
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestNULByteEndsTheSearchWhereRipgrepsDoes(t *testing.T) {
	// The cases below were checked against ripgrep 13: `rg --json` reports
	// exactly these matches.
	big := strings.Repeat("x", 70000)
	tests := []struct {
		name  string
		text  string
		lines []int
	}{
		{"NUL in the first block: nothing", "needle\n\x00needle\n", nil},
		{"NUL at the very start", "\x00needle\n", nil},
		{"NUL after the first block keeps earlier blocks", "needle early\n" + big + "\nneedle late\n\x00\nneedle after\n", []int{1}},
		{"no NUL: everything", "needle\n" + big + "\nneedle\n", []int{1, 3}},
	}
	m, _ := Compile("needle", PatternOptions{Fixed: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, window := range []int{maxWhole, 128 << 10} {
				res, binary := searchText(t, m, tt.text, ModeContent, 0, 100, window, false)
				var got []int
				for _, l := range res.Lines {
					got = append(got, l.Num)
				}
				if !cmp.Equal(got, tt.lines) {
					t.Errorf("window %d: lines %v, want %v", window, got, tt.lines)
				}
				if binary != strings.Contains(tt.text, "\x00") {
					t.Errorf("window %d: binary = %v", window, binary)
				}
			}
		})
	}
}

func FuzzFileSearch(f *testing.F) {
	f.Add("a needle\nb\n\nneedle\n", uint8(1), uint8(3), uint16(1024))
	f.Add(strings.Repeat("y", 3000)+"needle\nx\n", uint8(2), uint8(1), uint16(700))
	f.Fuzz(func(t *testing.T, text string, ctxLines, limit uint8, window uint16) {
		if strings.Contains(text, "\x00") {
			return // binary files follow ripgrep's blocks, compared with ripgrep itself elsewhere
		}
		m, _ := Compile("needle", PatternOptions{Fixed: true})
		c, l := int(ctxLines%5), int(limit%20)+1
		w := int(window) + overlap + 64
		want := naiveGrep(t, m, text, c, l, w)
		got, _ := searchText(t, m, text, ModeContent, c, l, w, false)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("context %d limit %d window %d (-naive +searcher):\n%s", c, l, w, diff)
		}
	})
}
