package patch

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

func TestParseBeginPatch(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []FilePatch
	}{
		{
			name:  "add, delete and update with move",
			patch: "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Delete File: b.txt\n*** Update File: c.txt\n*** Move to: d.txt\n@@ func f()\n-old\n+new\n*** End Patch",
			want: []FilePatch{
				{Op: OpAdd, Path: "a.txt", Content: []byte("one\ntwo\n"), Line: 2},
				{Op: OpDelete, Path: "b.txt", Line: 5},
				{Op: OpUpdate, Path: "c.txt", MoveTo: "d.txt", Line: 6, Hunks: []Hunk{{
					Headers: []string{"func f()"}, PatchLine: 8,
					Lines: []Line{{Kind: Delete, Text: "old"}, {Kind: Add, Text: "new"}},
				}}},
			},
		},
		{
			name:  "heredoc wrapper and padded, lower-case markers",
			patch: "<<'EOF'\n  *** begin patch  \n*** Update File:   x.go  \n @@ \n-a\n+b\n   *** End Patch\nEOF\n",
			want: []FilePatch{{Op: OpUpdate, Path: "x.go", Line: 3, Hunks: []Hunk{{
				PatchLine: 4, Lines: []Line{{Kind: Delete, Text: "a"}, {Kind: Add, Text: "b"}},
			}}}},
		},
		{
			name:  "apply_patch heredoc command inside a code fence",
			patch: "```\napply_patch <<\"PATCH\"\n*** Begin Patch\n*** Delete File: gone\n*** End Patch\nPATCH\n```",
			want:  []FilePatch{{Op: OpDelete, Path: "gone", Line: 4}},
		},
		{
			name:  "stacked headers narrow one hunk; a second hunk ends at EOF",
			patch: "*** Begin Patch\n*** Update File: m.py\n@@ class A\n@@     def f(self):\n-  x\n+  y\n@@\n last\n+tail\n*** End of File\n*** End Patch",
			want: []FilePatch{{Op: OpUpdate, Path: "m.py", Line: 2, Hunks: []Hunk{
				{Headers: []string{"class A", "def f(self):"}, PatchLine: 3, Lines: []Line{{Kind: Delete, Text: "  x"}, {Kind: Add, Text: "  y"}}},
				{PatchLine: 7, EOF: true, Lines: []Line{{Kind: Context, Text: "last"}, {Kind: Add, Text: "tail"}}},
			}}},
		},
		{
			name:  "first hunk without @@, bare blank line as context",
			patch: "*** Begin Patch\n*** Update File: f\n a\n\n-b\n*** End Patch",
			want: []FilePatch{{Op: OpUpdate, Path: "f", Line: 2, Hunks: []Hunk{{
				PatchLine: 3, Lines: []Line{{Kind: Context, Text: "a"}, {Kind: Context, Bare: true}, {Kind: Delete, Text: "b"}},
			}}}},
		},
		{
			name:  "unified range in a Begin Patch header becomes a hint",
			patch: "*** Begin Patch\n*** Update File: f\n@@ -12,2 +12,2 @@ func g()\n-a\n+b\n*** End Patch",
			want: []FilePatch{{Op: OpUpdate, Path: "f", Line: 2, Hunks: []Hunk{{
				Headers: []string{"func g()"}, OldLine: 12, HasPos: true, PatchLine: 3,
				Lines: []Line{{Kind: Delete, Text: "a"}, {Kind: Add, Text: "b"}},
			}}}},
		},
		{
			name:  "no-newline marker after an added line",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n\\ No newline at end of file\n*** End Patch",
			want: []FilePatch{{Op: OpUpdate, Path: "f", Line: 2, Hunks: []Hunk{{
				PatchLine: 3, NewNoEOL: true,
				Lines: []Line{{Kind: Delete, Text: "a"}, {Kind: Add, Text: "b"}},
			}}}},
		},
		{
			name:  "blank line between '+' lines of an added file is an empty line",
			patch: "*** Begin Patch\n*** Add File: f\n+a\n\n+b\n\n*** End Patch",
			want:  []FilePatch{{Op: OpAdd, Path: "f", Content: []byte("a\n\nb\n"), Line: 2}},
		},
		{
			name:  "pure rename",
			patch: "*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch",
			want:  []FilePatch{{Op: OpUpdate, Path: "a", MoveTo: "b", Line: 2}},
		},
		{
			name:  "CRLF patch text",
			patch: "*** Begin Patch\r\n*** Add File: f\r\n+x\r\n*** End Patch\r\n",
			want:  []FilePatch{{Op: OpAdd, Path: "f", Content: []byte("x\n"), Line: 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.patch)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if p.Format != FormatBeginPatch {
				t.Errorf("format = %q", p.Format)
			}
			if diff := cmp.Diff(tt.want, p.Files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, patch, want string
	}{
		{"empty text", "  \n\n", "the patch is empty"},
		{"markers with nothing between", "*** Begin Patch\n*** End Patch", "the patch is empty"},
		{"empty heredoc", "<<EOF\nEOF", "the patch is empty"},
		{"bad first line", "hello\n*** End Patch", `bad header "hello"`},
		{"unknown file marker", "*** Begin Patch\n*** Change File: x\n*** End Patch", `patch line 2: bad header "*** Change File: x"`},
		{"no end marker", "*** Begin Patch\n*** Add File: x\n+a", `has no "*** End Patch" line`},
		{"text after end", "*** Begin Patch\n*** Delete File: x\n*** End Patch\nthanks", "text after"},
		{"update without hunks", "*** Begin Patch\n*** Update File: x\n*** End Patch", "has no hunks"},
		{"header without lines", "*** Begin Patch\n*** Update File: x\n@@ f\n*** End Patch", "an @@ line but no lines"},
		{"unprefixed line in hunk", "*** Begin Patch\n*** Update File: x\n@@\n-a\nb\n*** End Patch", `patch line 5: unexpected line in a hunk of "x": "b"`},
		{"second hunk without @@", "*** Begin Patch\n*** Update File: x\n@@\n-a\n*** End of File\n+b\n*** End Patch", "expected '@@'"},
		{"end of file first", "*** Begin Patch\n*** Update File: x\n*** End of File\n*** End Patch", "must follow the lines of a hunk"},
		{"add line without plus", "*** Begin Patch\n*** Add File: x\n+a\nb\n*** End Patch", "starts with '+'"},
		{"empty path", "*** Begin Patch\n*** Delete File:\n*** End Patch", "has no path"},
		{"NUL in path", "*** Begin Patch\n*** Delete File: a\x00b\n*** End Patch", "NUL byte"},
		{"fragment without file header", "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n@@ -9 +9 @@\n", "unified diff"},
		{"binary diff", "diff --git a/x.bin b/x.bin\nindex 1..2 100644\nBinary files a/x.bin and b/x.bin differ\n", "binary"},
		{"mode change only", "diff --git a/x b/x\nold mode 100644\nnew mode 100755\n", "changes no file content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.patch)
			if err == nil {
				t.Fatal("Parse succeeded; want an error")
			}
			if tool.CodeOf(err) != tool.CodeInvalidArguments {
				t.Errorf("code = %q, want INVALID_ARGUMENTS (%v)", tool.CodeOf(err), err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestParseUnified(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []FilePatch
	}{
		{
			name: "git diff with update, new, deleted and renamed files",
			patch: `diff --git a/src/a.go b/src/a.go
index 83db48f..bf269f4 100644
--- a/src/a.go
+++ b/src/a.go
@@ -2,3 +2,3 @@ package a
 x
-y
+z
 w
diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..3b18e51
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+hello
+world
\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 3b18e51..0000000
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/from.txt b/to.txt
similarity index 100%
rename from from.txt
rename to to.txt
`,
			want: []FilePatch{
				{Op: OpUpdate, Path: "src/a.go", Hunks: []Hunk{{OldLine: 2, HasPos: true, PatchLine: 5, Lines: []Line{
					{Kind: Context, Text: "x"}, {Kind: Delete, Text: "y"}, {Kind: Add, Text: "z"}, {Kind: Context, Text: "w"},
				}}}},
				{Op: OpAdd, Path: "new.txt", Content: []byte("hello\nworld")},
				{Op: OpDelete, Path: "old.txt"},
				{Op: OpUpdate, Path: "from.txt", MoveTo: "to.txt"},
			},
		},
		{
			name:  "plain diff -u with a/ b/ prefixes and wrong counts",
			patch: "--- a/f.txt\t2024-01-01 00:00:00\n+++ b/f.txt\t2024-01-02 00:00:00\n@@ -1,9 +1,9 @@\n a\n-b\n+c\n",
			want: []FilePatch{{Op: OpUpdate, Path: "f.txt", Hunks: []Hunk{{OldLine: 1, HasPos: true, PatchLine: 3, Lines: []Line{
				{Kind: Context, Text: "a"}, {Kind: Delete, Text: "b"}, {Kind: Add, Text: "c"},
			}}}}},
		},
		{
			name:  "plain diff without prefixes; insertion-only hunk",
			patch: "--- f.txt\n+++ f.txt\n@@ -3,0 +4 @@\n+new\n",
			want: []FilePatch{{Op: OpUpdate, Path: "f.txt", Hunks: []Hunk{{OldLine: 4, HasPos: true, PatchLine: 3, Lines: []Line{
				{Kind: Add, Text: "new"},
			}}}}},
		},
		{
			name:  "no-newline marker on the old side",
			patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n",
			want: []FilePatch{{Op: OpUpdate, Path: "f", Hunks: []Hunk{{OldLine: 1, HasPos: true, PatchLine: 3, OldNoEOL: true, Lines: []Line{
				{Kind: Delete, Text: "x"}, {Kind: Add, Text: "x"},
			}}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.patch)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if p.Format != FormatUnified {
				t.Errorf("format = %q", p.Format)
			}
			if diff := cmp.Diff(tt.want, p.Files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPathsListsSourcesAndTargets(t *testing.T) {
	p, err := Parse("*** Begin Patch\n*** Add File: src/./a.go\n+x\n*** Update File: b.go\n*** Move to: lib/b.go\n@@\n-x\n+y\n*** Delete File: src/a.go\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"src/a.go", "b.go", "lib/b.go"}, p.Paths()); diff != "" {
		t.Errorf("Paths (-want +got):\n%s", diff)
	}
}
