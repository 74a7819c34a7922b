package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

// latin1 is a file with bytes that are not UTF-8: é in Latin-1 (0xE9) on
// line 2, and a run of two on line 4.
const latin1 = "hello\ncaf\xe9 au lait\nbye\nx\xff\xfey\n"

// TestEditSaysWhatBytesAreNotUTF8: an old_string copied from what
// read_file showed (U+FFFD for each byte that is not UTF-8) cannot match;
// the error names the bytes (line, file offset, hex) and how to edit such
// a line, instead of "read it again", which shows the same U+FFFD (issue
// 33). The advice holds: an old_string that leaves the bytes out edits
// the line and keeps them exactly.
func TestEditSaysWhatBytesAreNotUTF8(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("latin.txt", latin1)
	env.markRead("latin.txt")
	for _, c := range []struct {
		name, old string
		want      []string
		offsets   []int
	}{
		{"closest region", "caf\uFFFD au lait", []string{"line 2, file offset 9: 0xE9", "apply_patch", "leaves them out"}, []int{9}},
		{"a run of two", "x\uFFFD\uFFFDy", []string{"line 4, file offset 24: 0xFF 0xFE"}, []int{24}},
		{"no close line, but old_string holds U+FFFD", "zzz\uFFFD", []string{"line 2, file offset 9: 0xE9; line 4, file offset 24: 0xFF 0xFE"}, []int{9, 24}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := env.run(newEdit(), editArgs("latin.txt", c.old, "coffee"))
			te := wantToolError(t, err, tool.CodeInvalidArguments, c.want...)
			if strings.Contains(te.Message, "Copy old_string from these lines exactly") {
				t.Errorf("the error still says to copy the lines again:\n%s", te.Message)
			}
			if diff := cmp.Diff(c.offsets, te.Details["non_utf8_offsets"]); diff != "" {
				t.Errorf("details.non_utf8_offsets (-want +got):\n%s", diff)
			}
		})
	}
	// An old_string of valid text far from the bytes says nothing of them.
	_, err := env.run(newEdit(), editArgs("latin.txt", "hellp world", "x"))
	if te := wantToolError(t, err, tool.CodeInvalidArguments); strings.Contains(te.Message, "not UTF-8") {
		t.Errorf("a miss on line 1 names the bytes of other lines:\n%s", te.Message)
	}
	env.runOK(newEdit(), editArgs("latin.txt", "au lait", "with milk"))
	if got, want := env.read("latin.txt"), "hello\ncaf\xe9 with milk\nbye\nx\xff\xfey\n"; got != want {
		t.Errorf("after editing beside the bytes: %q, want %q", got, want)
	}
}

// TestApplyPatchKeepsBytesThatAreNotUTF8: what edit's advice promises of
// apply_patch. U+FFFD in a context line matches a byte that is not UTF-8
// and the line is kept byte for byte; in a - line it matches too, so the
// line can be replaced; a + line writes what it says.
func TestApplyPatchKeepsBytesThatAreNotUTF8(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("latin.txt", latin1)
	env.runOK(newApplyPatch(), jsonArgs(map[string]any{"patch": "*** Begin Patch\n*** Update File: latin.txt\n@@\n hello\n caf\uFFFD au lait\n-bye\n+goodbye\n x\uFFFD\uFFFDy\n*** End Patch"}))
	if got, want := env.read("latin.txt"), "hello\ncaf\xe9 au lait\ngoodbye\nx\xff\xfey\n"; got != want {
		t.Errorf("context lines: %q, want %q", got, want)
	}
	env.runOK(newApplyPatch(), jsonArgs(map[string]any{"patch": "*** Begin Patch\n*** Update File: latin.txt\n@@\n hello\n-caf\uFFFD au lait\n+café au lait\n*** End Patch"}))
	if got, want := env.read("latin.txt"), "hello\ncafé au lait\ngoodbye\nx\xff\xfey\n"; got != want {
		t.Errorf("a - line: %q, want %q", got, want)
	}
}
