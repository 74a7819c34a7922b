package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

func multiArgs(p string, edits ...map[string]any) string {
	return jsonArgs(map[string]any{"path": p, "edits": edits})
}

func op(old, new string, extra ...any) map[string]any {
	m := map[string]any{"old_string": old, "new_string": new}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

const multiFile = "package p\n\nimport \"fmt\"\n\nfunc a() { fmt.Println(\"a\") }\n\nfunc b() { fmt.Println(\"b\") }\n"

func TestMultiEditAppliesInOrder(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("p.go", multiFile)
	res := env.runOK(newMultiEdit(), multiArgs("p.go",
		op(`import "fmt"`, "import (\n\t\"fmt\"\n\t\"os\"\n)"),
		op(`"os"`, `"io"`), // matches text the first edit inserted
		op("fmt.Println", "fmt.Print", "replace_all", true),
		op("  func b() {", "func bb() {"), // drifted whitespace, matched loosely
	))
	out := res.Output.(*MultiEditOutput)
	want := "package p\n\nimport (\n\t\"fmt\"\n\t\"io\"\n)\n\nfunc a() { fmt.Print(\"a\") }\n\nfunc bb() { fmt.Print(\"b\") }\n"
	if got := env.read("p.go"); got != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	wantSteps := []EditStep{
		{Replacements: 1, Strategy: "exact", Lines: []int{3}},
		{Replacements: 1, Strategy: "exact", Lines: []int{5}},
		{Replacements: 2, Strategy: "exact", Lines: []int{8, 10}},
		{Replacements: 1, Strategy: "whitespace-normalized", Lines: []int{10}},
	}
	if diff := cmp.Diff(wantSteps, out.Edits); diff != "" {
		t.Errorf("per-edit results (-want +got):\n%s", diff)
	}
	if out.Replacements != 5 || out.SHA256 != sumHex(want) {
		t.Errorf("output %+v", out)
	}
	checkToolDiff(t, multiFile, out.Diff, want)
	if !strings.Contains(res.String(), "matched whitespace-normalized") {
		t.Errorf("view does not warn about the loose match:\n%s", res.String())
	}
}

// TestMultiEditAllOrNothing: when a later edit fails, no edit is applied
// and the error names the failing one.
func TestMultiEditAllOrNothing(t *testing.T) {
	tests := []struct {
		name  string
		edits []map[string]any
		code  tool.Code
		hints []string
	}{
		{"multi_edit: the second edit is not found", []map[string]any{op("func a()", "func A()"), op("func zzz()", "x")},
			tool.CodeInvalidArguments, []string{"edits[1]:", "old_string was not found", "no edit was applied"}},
		{"multi_edit: the third edit is ambiguous", []map[string]any{op("package p", "package q"), op("\"a\"", "\"A\""), op("fmt.Println", "log.Println")},
			tool.CodeInvalidArguments, []string{"edits[2]:", "matches 2 places (lines 5, 7)"}},
		{"multi_edit: an edit undone by an earlier one", []map[string]any{op("func b()", "func c()"), op("func b()", "func d()")},
			tool.CodeInvalidArguments, []string{"edits[1]:", "not found"}},
		{"multi_edit: an empty old_string after the first", []map[string]any{op("package p", "package q"), op("", "x")},
			tool.CodeInvalidArguments, []string{`"edits[1].old_string" is empty`}},
		{"multi_edit: an empty old_string on an existing file", []map[string]any{op("", "x")},
			tool.CodeInvalidArguments, []string{"already exists"}},
		{"multi_edit: no edits", []map[string]any{},
			tool.CodeInvalidArguments, []string{"edits"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newFileEnv(t, t.TempDir())
			env.write("p.go", multiFile)
			_, err := env.run(newMultiEdit(), multiArgs("p.go", tt.edits...))
			wantToolError(t, err, tt.code, tt.hints...)
			if got := env.read("p.go"); got != multiFile {
				t.Errorf("file changed:\n%s", got)
			}
			noTempFiles(t, env.root)
		})
	}
}

func TestMultiEditCreatesThenEdits(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	out := env.runOK(newMultiEdit(), multiArgs("new/f.txt", op("", "one\ntwo\n"), op("two", "2"))).Output.(*MultiEditOutput)
	if got := env.read("new/f.txt"); got != "one\n2\n" || !out.Created {
		t.Errorf("file %q, output %+v", got, out)
	}
	if want := "--- /dev/null\n+++ b/new/f.txt\n@@ -0,0 +1,2 @@\n+one\n+2\n"; out.Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", out.Diff, want)
	}
}

func TestMultiEditDryRunAndCRLF(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("w.txt", "a\r\nb\r\nc\r\n")
	out := env.runOK(newMultiEdit(), jsonArgs(map[string]any{"path": "w.txt", "dry_run": true,
		"edits": []map[string]any{op("a", "A"), op("c\n", "c\nd\n")}})).Output.(*MultiEditOutput)
	if env.read("w.txt") != "a\r\nb\r\nc\r\n" {
		t.Error("a dry run wrote the file")
	}
	if out.SHA256 != sumHex("A\r\nb\r\nc\r\nd\r\n") {
		t.Errorf("sha256 of the would-be file is %s", out.SHA256)
	}
	env.runOK(newMultiEdit(), multiArgs("w.txt", op("a", "A"), op("c\n", "c\nd\n")))
	if got := env.read("w.txt"); got != "A\r\nb\r\nc\r\nd\r\n" {
		t.Errorf("file %q", got)
	}
}
