package patch

import (
	"bytes"
	"testing"
)

// FuzzParse feeds arbitrary text to the parser and, when it parses, applies
// every update's hunks to arbitrary file content. Neither may panic, and an
// applied result must be self-consistent. The seed corpus in
// testdata/fuzz/FuzzParse holds the scenario patches and malformed variants.
func FuzzParse(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@ x\n-1\n+2\n*** End of File\n*** End Patch", []byte("x\n1\n"))
	f.Add("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n", []byte("a\nb"))
	f.Fuzz(func(t *testing.T, text string, file []byte) {
		p, err := Parse(text)
		if err != nil {
			return
		}
		if len(p.Files) == 0 {
			t.Fatal("Parse succeeded with no file operations")
		}
		for _, fp := range p.Files {
			if fp.Path == "" {
				t.Fatalf("a %s operation has no path", fp.Op)
			}
			if fp.Op != OpUpdate {
				continue
			}
			c, added, removed, err := applyHunks(newText(file), fp.Hunks)
			if err != nil {
				continue
			}
			out := c.bytes()
			if len(out) != c.size {
				t.Fatalf("content size %d, counted %d", len(out), c.size)
			}
			if added < 0 || removed < 0 || removed > countLines(file) {
				t.Fatalf("added %d, removed %d of %d lines", added, removed, countLines(file))
			}
			if len(fp.Hunks) == 0 && !bytes.Equal(out, file) {
				t.Fatalf("no hunks changed the content: %q -> %q", file, out)
			}
		}
	})
}
