package search

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// matchingLines runs the scanner over text and returns the numbers of the
// matching lines.
func matchingLines(m *Matcher, text string) []int {
	data := []byte(text)
	sc := m.scanner()
	sc.reset()
	var got []int
	for pos := 0; pos < len(data); {
		start, end := sc.next(data, pos)
		if start < 0 {
			break
		}
		got = append(got, 1+bytes.Count(data[:start], newline))
		pos = end + 1
	}
	return got
}

// oracleLines is the reference: split text into lines and match each line
// on its own with the standard library.
func oracleLines(t testing.TB, pattern string, opts PatternOptions, text string) []int {
	if opts.Fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	if opts.IgnoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	if text == "" {
		return nil // an empty file has no lines
	}
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1]
	}
	var want []int
	for i, l := range lines {
		if re.MatchString(l) {
			want = append(want, i+1)
		}
	}
	return want
}

const sampleText = "package main\n\nfunc New() *T {\n\treturn &T{}\n}\n\nfunc  NewReader(r io.Reader) {}\nfunc newThing()\n// Context.Context and CONTEXT.context\nfuncNew\n\xff\xfe bytes func New\r\nKelvin \u212a and long \u017f\nlast line without newline func New"

func TestMatcherAgreesWithLineByLineRegexp(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		opts    PatternOptions
	}{
		{"fixed string", "func New", PatternOptions{Fixed: true}},
		{"fixed string with regexp metacharacters", "&T{}", PatternOptions{Fixed: true}},
		{"regexp with a required literal", `func\s+New\w*\(`, PatternOptions{}},
		{"case-insensitive literal", "context.context", PatternOptions{Fixed: true, IgnoreCase: true}},
		{"case-insensitive literal with k folds to the Kelvin sign", "kelvin k", PatternOptions{Fixed: true, IgnoreCase: true}},
		{"case-insensitive long s", "long s", PatternOptions{Fixed: true, IgnoreCase: true}},
		{"anchored regexp", `^func`, PatternOptions{}},
		{"end anchor", `\{\}$`, PatternOptions{}},
		{"empty line", `^$`, PatternOptions{}},
		{"no literal at all", `[A-Z]{2,}`, PatternOptions{}},
		{"matches every line", `x*`, PatternOptions{}},
		{"negated class does not cross lines", `main[^x]func`, PatternOptions{}},
		{"dot does not cross lines", `main.func`, PatternOptions{}},
		{"whitespace class does not cross lines", `main\sfunc`, PatternOptions{}},
		{"alternation", `newThing|Reader`, PatternOptions{}},
		{"alternation of literals found side by side", `NewReader|newThing|CONTEXT`, PatternOptions{}},
		{"case-insensitive alternation", `reader|context`, PatternOptions{IgnoreCase: true}},
		{"alternation with a branch without literal", `Reader|^$`, PatternOptions{}},
		{"word boundaries", `\bNew\b`, PatternOptions{}},
		{"invalid UTF-8 in the text", `bytes func`, PatternOptions{}},
		{"carriage return before the line end", `New$`, PatternOptions{}},
		{"pattern starting with a dash", `-1`, PatternOptions{Fixed: true}},
		{"case-insensitive regexp", `^FUNC\s+new`, PatternOptions{IgnoreCase: true}},
		{"non-ASCII case-insensitive", "\u212a", PatternOptions{IgnoreCase: true}},
		{"unicode text", "without newline", PatternOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Compile(tt.pattern, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			want := oracleLines(t, tt.pattern, tt.opts, sampleText)
			if diff := cmp.Diff(want, matchingLines(m, sampleText)); diff != "" {
				t.Errorf("pattern %q (-oracle +matcher):\n%s", tt.pattern, diff)
			}
		})
	}
}

func TestCompileRefusesBadPatterns(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		opts    PatternOptions
		want    string
	}{
		{"empty", "", PatternOptions{}, "pattern is empty"},
		{"unclosed group gives the parser's message", "(a", PatternOptions{}, "missing closing )"},
		{"bad repetition", "a**", PatternOptions{}, "invalid nested repetition operator"},
		{"literal line break", `a\nb`, PatternOptions{}, "line break"},
		{"fixed string with a line break", "a\nb", PatternOptions{Fixed: true}, "line break"},
		{"backreferences are not RE2", `(a)\1`, PatternOptions{}, "invalid escape sequence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.pattern, tt.opts)
			var pe *PatternError
			if !errors.As(err, &pe) {
				t.Fatalf("Compile(%q) = %v, want a *PatternError", tt.pattern, err)
			}
			if !strings.Contains(pe.Msg, tt.want) {
				t.Errorf("message %q does not say %q", pe.Msg, tt.want)
			}
		})
	}
}

func TestMatcherLocatesTheRarestLiteral(t *testing.T) {
	tests := []struct {
		pattern string
		opts    PatternOptions
		lit     string
		exact   bool
	}{
		{"func New", PatternOptions{Fixed: true}, "func New", true},
		{`func\s+New\w*\(`, PatternOptions{}, "New", false},
		{"context.context", PatternOptions{Fixed: true, IgnoreCase: true}, "context.context", true},
		{"task list", PatternOptions{Fixed: true, IgnoreCase: true}, " li", false},
		{`\d+`, PatternOptions{}, "", false},
		{`a|b`, PatternOptions{}, "", false},
	}
	for _, tt := range tests {
		m, err := Compile(tt.pattern, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if string(m.lit) != tt.lit || m.exact != tt.exact {
			t.Errorf("%q: literal %q exact %v, want %q %v", tt.pattern, m.lit, m.exact, tt.lit, tt.exact)
		}
	}
}

func TestMatcherSearchesAlternativesSideBySide(t *testing.T) {
	// The folded literal stops before k, whose folds include the Kelvin sign.
	m, err := Compile(`TODO|FIXME|(?i:hack)`, PatternOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range m.alts {
		got = append(got, string(l.text))
	}
	if diff := cmp.Diff([]string{"TODO", "FIXME", "hac"}, got); diff != "" {
		t.Errorf("alternatives (-want +got):\n%s", diff)
	}
	if m, _ := Compile(`TODO|\d+`, PatternOptions{}); m.alts != nil {
		t.Errorf("a branch without a literal still gave alternatives %v", m.alts)
	}
}

func TestSourceIsLineSafe(t *testing.T) {
	m, err := Compile(`^a.\w[^x]\s$`, PatternOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `(?m-s:^a.[0-9A-Z_a-z][^\nx][\t\f\r ]$)`
	if m.Source() != want {
		t.Errorf("Source() = %q, want %q", m.Source(), want)
	}
}

func TestHasUpper(t *testing.T) {
	for s, want := range map[string]bool{"auth": false, "Auth": true, "straße": false, "ÉTÉ": true, "123_x": false} {
		if got := HasUpper(s); got != want {
			t.Errorf("HasUpper(%q) = %v", s, got)
		}
	}
}

func FuzzMatcher(f *testing.F) {
	f.Add("func New", false, false, sampleText)
	f.Add(`\bN\w+`, false, true, "x New\nnew\nNEW\n")
	f.Add(`^$`, false, false, "\n\n\na\n")
	f.Add("kS", true, true, "\u212a\u017f\nks\n")
	f.Fuzz(func(t *testing.T, pattern string, fixed, fold bool, text string) {
		opts := PatternOptions{Fixed: fixed, IgnoreCase: fold}
		m, err := Compile(pattern, opts)
		if err != nil {
			return
		}
		want := oracleLines(t, pattern, opts, text)
		if got := matchingLines(m, text); !cmp.Equal(want, got) {
			t.Errorf("pattern %q fixed=%v fold=%v text %q: oracle %v, matcher %v", pattern, fixed, fold, text, want, got)
		}
	})
}
