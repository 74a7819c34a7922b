package edit

import "testing"

// TestUnified checks the diff generator on the edges of the format: missing
// final newlines, empty files, and changes that change nothing. Every diff is
// also applied with go-gitdiff.
func TestUnified(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		changes []Change
		want    string
	}{
		{"diff: no change gives no diff", "a\n", []Change{{Off: 0, Len: 1, New: "a"}}, ""},
		{"diff: creating a file", "", []Change{{New: "x\ny\n"}}, "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"diff: emptying a file", "x\ny\n", []Change{{Off: 0, Len: 4}}, "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{"diff: adding the final newline", "a\nb", []Change{{Off: 3, New: "\n"}},
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"diff: removing the final newline", "a\nb\n", []Change{{Off: 3, Len: 1}},
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
		{"diff: a change inside a line", "one two three\n", []Change{{Off: 4, Len: 3, New: "2"}},
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-one two three\n+one 2 three\n"},
		{"diff: context shrinks at the start and end of the file", "a\nb\nc\n", []Change{{Off: 2, Len: 1, New: "B"}},
			"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Unified("a/f", "b/f", tt.text, tt.changes)
			if got != tt.want {
				t.Errorf("diff:\n%q\nwant:\n%q", got, tt.want)
			}
			checkDiffApplies(t, tt.text, got, Apply(tt.text, tt.changes))
		})
	}
}

// TestUnifiedLargeRegion: a region too large for the line-by-line comparison
// is shown as removed and added wholesale, which is still a correct diff.
func TestUnifiedLargeRegion(t *testing.T) {
	var text, repl []byte
	for i := 0; i < 1500; i++ {
		text = append(text, "old line\n"...)
		repl = append(repl, "new line\n"...)
	}
	changes := []Change{{Off: 0, Len: len(text), New: string(repl)}}
	checkDiffApplies(t, string(text), Unified("a/f", "b/f", string(text), changes), string(repl))
}
