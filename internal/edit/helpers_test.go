package edit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// checkDiffApplies applies diff to text with go-gitdiff, an independent
// implementation of the format, and fails unless the result is want.
func checkDiffApplies(t testing.TB, text, diff, want string) {
	t.Helper()
	if diff == "" {
		if text != want {
			t.Fatalf("empty diff, but the text changed")
		}
		return
	}
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil {
		t.Fatalf("diff does not parse: %v\n%s", err, diff)
	}
	if len(files) != 1 {
		t.Fatalf("diff holds %d files, want 1\n%s", len(files), diff)
	}
	var out bytes.Buffer
	if err := gitdiff.Apply(&out, strings.NewReader(text), files[0]); err != nil {
		t.Fatalf("diff does not apply: %v\n%s", err, diff)
	}
	if out.String() != want {
		t.Fatalf("diff applied gives %q, want %q\n%s", out.String(), want, diff)
	}
}

// txtar is a minimal reader and writer of the txtar format: a comment, then
// files introduced by "-- name --" lines.
type txtar struct {
	comment string
	names   []string
	files   map[string]string
}

func parseTxtar(data string) *txtar {
	a := &txtar{files: map[string]string{}}
	name := ""
	var body strings.Builder
	flush := func() {
		if name == "" {
			a.comment = body.String()
		} else {
			a.names = append(a.names, name)
			a.files[name] = body.String()
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(data, "\n") {
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			name = trimmed[3 : len(trimmed)-3]
			continue
		}
		body.WriteString(line)
	}
	flush()
	return a
}

func (a *txtar) set(name, content string) {
	if _, ok := a.files[name]; !ok {
		a.names = append(a.names, name)
	}
	a.files[name] = content
}

func (a *txtar) format() string {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, n := range a.names {
		b.WriteString("-- " + n + " --\n")
		c := a.files[n]
		b.WriteString(c)
		if c != "" && !strings.HasSuffix(c, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}
