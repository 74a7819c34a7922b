package edit

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the want/ sections of testdata/cases from the current results")

// TestCases runs the edit scenarios in testdata/cases: each file holds a file,
// an old_string and a new_string, and what must come out — the strategy, the
// file, the diff, or the error. Every diff is also applied with go-gitdiff and
// must give the new file.
//
// Conventions: old and new lose the one final newline the format adds (leave
// an empty line to keep one). opts lines: replace_all, expected_replacements=N,
// crlf (the file's LF become CRLF), bom, no-eol (the file lacks its final
// newline). want/error lines must each appear in the error message.
func TestCases(t *testing.T) {
	paths, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(paths) < 30 {
		t.Fatalf("want at least 30 cases, found %d (%v)", len(paths), err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) { runCase(t, p) })
	}
}

func runCase(t *testing.T, p string) {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	a := parseTxtar(string(data))
	opts := map[string]string{}
	for _, l := range strings.Fields(a.files["opts"]) {
		k, v, _ := strings.Cut(l, "=")
		opts[k] = v
	}
	content := a.files["file"]
	if _, ok := opts["no-eol"]; ok {
		content = strings.TrimSuffix(content, "\n")
	}
	if _, ok := opts["crlf"]; ok {
		content = strings.ReplaceAll(content, "\n", "\r\n")
	}
	if _, ok := opts["bom"]; ok {
		content = "\uFEFF" + content
	}
	text, format := Decode([]byte(content))
	e := Edit{
		Old:        format.Normalize(strings.TrimSuffix(a.files["old"], "\n")),
		New:        format.Normalize(strings.TrimSuffix(a.files["new"], "\n")),
		ReplaceAll: hasKey(opts, "replace_all"),
	}
	if v, ok := opts["expected_replacements"]; ok {
		e.ExpectedReplacements, _ = strconv.Atoi(v)
	}
	m, err := Find(text, e)
	if wantErr, ok := a.files["want/error"]; ok {
		if err == nil {
			t.Fatalf("edit applied with strategy %s; want an error", m.Strategy)
		}
		for _, w := range strings.Split(strings.TrimSuffix(wantErr, "\n"), "\n") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error does not contain %q:\n%s", w, err)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	result := Apply(text, m.Changes)
	diff := Unified("a/file", "b/file", text, m.Changes)
	checkDiffApplies(t, text, diff, result)
	checkEncoding(t, format.Encode(result), opts)
	if *update {
		a.set("want/strategy", string(m.Strategy)+"\n")
		delete(a.files, "want/file")
		delete(a.files, "want/file-noeol")
		a.names = without(a.names, "want/file", "want/file-noeol")
		if strings.HasSuffix(result, "\n") || result == "" {
			a.set("want/file", result)
		} else {
			a.set("want/file-noeol", result+"\n")
		}
		a.set("want/diff", diff)
		if err := os.WriteFile(p, []byte(a.format()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, want := string(m.Strategy), strings.TrimSuffix(a.files["want/strategy"], "\n"); got != want {
		t.Errorf("strategy %s, want %s", got, want)
	}
	want, ok := a.files["want/file"]
	if noeol, isNoeol := a.files["want/file-noeol"]; isNoeol {
		want, ok = strings.TrimSuffix(noeol, "\n"), true
	}
	if !ok {
		t.Fatalf("no want/file section; run with -update")
	}
	if result != want {
		t.Errorf("file after edit:\n%q\nwant:\n%q", result, want)
	}
	if diff != a.files["want/diff"] {
		t.Errorf("diff:\n%s\nwant:\n%s", diff, a.files["want/diff"])
	}
}

// checkEncoding checks that an edited file keeps the BOM and the CRLF line
// endings the case's file had.
func checkEncoding(t *testing.T, got []byte, opts map[string]string) {
	t.Helper()
	s := string(got)
	if hasKey(opts, "bom") != strings.HasPrefix(s, "\uFEFF") {
		t.Errorf("byte order mark not kept: %q", s)
	}
	if hasKey(opts, "crlf") && strings.Count(s, "\n") != strings.Count(s, "\r\n") {
		t.Errorf("CRLF file has LF line endings after the edit: %q", s)
	}
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

func without(names []string, drop ...string) []string {
	var out []string
	for _, n := range names {
		keep := true
		for _, d := range drop {
			keep = keep && n != d
		}
		if keep {
			out = append(out, n)
		}
	}
	return out
}
