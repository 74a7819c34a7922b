package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

func editArgs(p, old, new string, extra ...any) string {
	m := map[string]any{"path": p, "old_string": old, "new_string": new}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return jsonArgs(m)
}

const goFile = "package p\n\nfunc f(x int) int {\n\tif x > 0 {\n\t\treturn x\n\t}\n\treturn -x\n}\n"

// goFileTrailing is goFile with trailing spaces on one line.
var goFileTrailing = strings.Replace(goFile, "return x\n", "return x   \n", 1)

// TestEditAcceptance is the acceptance list for edit: drift in
// indentation, trailing spaces, or tabs written as spaces is applied and
// named; an ambiguous old_string is refused with line numbers.
func TestEditAcceptance(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		old, new string
		strategy string
		want     string
	}{
		{"edit: indentation drift re-indents new_string", goFile,
			"  if x > 0 {\n    return x\n  }", "  if x >= 0 {\n    return x\n  }",
			"indentation-flexible", strings.Replace(goFile, "if x > 0", "if x >= 0", 1)},
		{"edit: trailing spaces the model dropped", goFileTrailing,
			"\t\treturn x\n\t}", "\t\treturn x + 0\n\t}",
			"line-trimmed", strings.Replace(goFile, "return x\n", "return x + 0\n", 1)},
		{"edit: tabs written as spaces become tabs", goFile,
			"    if x > 0 {\n        return x\n    }\n    return -x", "    if x > 0 {\n        return x\n    }\n    if x == 0 {\n        return 0\n    }\n    return -x",
			"indentation-flexible", strings.Replace(goFile, "\treturn -x", "\tif x == 0 {\n\t\treturn 0\n\t}\n\treturn -x", 1)},
		{"edit: trailing spaces on every line of old_string and new_string stay out of the file", goFile,
			"\tif x > 0 {  \n\t\treturn x  \n\t}  ", "\tif x > 0 {  \n\t\treturn x + 1  \n\t}  ",
			"line-trimmed", strings.Replace(goFile, "return x\n", "return x + 1\n", 1)},
		{"edit: a nested block sent flattened keeps its depths", goFile,
			"if x > 0 {\nreturn x\n}", "if x > 0 {\nreturn x * 2\n}",
			"indentation-flexible", strings.Replace(goFile, "\t\treturn x\n", "\t\treturn x * 2\n", 1)},
		{"edit: an exact old_string is exact", goFile, "return -x", "return x * -1",
			"exact", strings.Replace(goFile, "return -x", "return x * -1", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newFileEnv(t, t.TempDir())
			env.write("f.go", tt.file)
			res := env.runOK(newEdit(), editArgs("f.go", tt.old, tt.new))
			out := res.Output.(*EditOutput)
			if out.Strategy != tt.strategy || out.Replacements != 1 {
				t.Errorf("strategy %s, %d replacements; want %s, 1", out.Strategy, out.Replacements, tt.strategy)
			}
			if got := env.read("f.go"); got != tt.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.want)
			}
			checkToolDiff(t, tt.file, out.Diff, tt.want)
			if view := res.String(); !strings.Contains(view, out.Diff) || tt.strategy != "exact" && !strings.Contains(view, "matched "+tt.strategy) {
				t.Errorf("model's view lacks the diff or the strategy warning:\n%s", view)
			}
		})
	}
}

func TestEditWhitespaceOnlyChangeRefused(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("f.go", goFile)
	_, err := env.run(newEdit(), editArgs("f.go", "\t\treturn x  \n\t}", "\t\treturn x\n\t}"))
	wantToolError(t, err, tool.CodeInvalidArguments, "only in whitespace that the match ignored (line-trimmed)", "copy old_string from the file exactly")
	if env.read("f.go") != goFile {
		t.Errorf("file changed by a refused edit")
	}
}

func TestEditAmbiguousListsLines(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	file := "a()\nb()\na()\nc()\na()\n"
	env.write("f.txt", file)
	_, err := env.run(newEdit(), editArgs("f.txt", "a()", "z()"))
	te := wantToolError(t, err, tool.CodeInvalidArguments, "matches 3 places (lines 1, 3, 5)", "replace_all")
	if diff := cmp.Diff([]int{1, 3, 5}, te.Details["lines"]); diff != "" {
		t.Errorf("details.lines (-want +got):\n%s", diff)
	}
	if env.read("f.txt") != file {
		t.Error("the file changed")
	}
	out := env.runOK(newEdit(), editArgs("f.txt", "a()", "z()", "replace_all", true)).Output.(*EditOutput)
	if out.Replacements != 3 || env.read("f.txt") != "z()\nb()\nz()\nc()\nz()\n" {
		t.Errorf("replace_all: %+v, file %q", out, env.read("f.txt"))
	}
}

func TestEditExpectedReplacements(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("f.txt", "x\nx\n")
	_, err := env.run(newEdit(), editArgs("f.txt", "x", "y", "expected_replacements", 3))
	wantToolError(t, err, tool.CodeInvalidArguments, "expected_replacements is 3, but old_string matches 2 places (lines 1, 2)")
	out := env.runOK(newEdit(), editArgs("f.txt", "x", "y", "expected_replacements", 2)).Output.(*EditOutput)
	if diff := cmp.Diff([]int{1, 2}, out.Lines); diff != "" || env.read("f.txt") != "y\ny\n" {
		t.Errorf("lines (-want +got):\n%s\nfile %q", diff, env.read("f.txt"))
	}
}

func TestEditNotFoundQuotesClosestRegion(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("f.go", goFile)
	_, err := env.run(newEdit(), editArgs("f.go", "func f(x int) int {\n\tif x < 0 {\n\t\treturn y", "z"))
	te := wantToolError(t, err, tool.CodeInvalidArguments, "f.go: old_string was not found",
		"The closest region is lines 3-5:", "     3\tfunc f(x int) int {", "     4\t\tif x > 0 {", "read_file (offset 3, limit 3)")
	if te.Details["closest_first_line"] != 3 {
		t.Errorf("details: %v", te.Details)
	}
}

func TestEditCreatesFiles(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	out := env.runOK(newEdit(), editArgs("pkg/new.go", "", "package pkg\n")).Output.(*EditOutput)
	if !out.Created || out.Strategy != "create" || env.read("pkg/new.go") != "package pkg\n" {
		t.Errorf("output %+v, file %q", out, env.read("pkg/new.go"))
	}
	if want := "--- /dev/null\n+++ b/pkg/new.go\n@@ -0,0 +1 @@\n+package pkg\n"; out.Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", out.Diff, want)
	}
	_, err := env.run(newEdit(), editArgs("pkg/new.go", "", "again\n"))
	wantToolError(t, err, tool.CodeInvalidArguments, "already exists", "empty old_string creates a new file")
	_, err = env.run(newEdit(), editArgs("missing.go", "something", "else"))
	wantToolError(t, err, tool.CodeExecutionFailed, "does not exist", "empty old_string")
}

func TestEditRefusals(t *testing.T) {
	tests := []struct {
		name string
		args string
		code tool.Code
		hint string
	}{
		{"edit: old_string equal to new_string", editArgs("f.txt", "alpha", "alpha"), tool.CodeInvalidArguments, "identical"},
		{"edit: a stale expected_sha256", editArgs("f.txt", "alpha", "beta", "expected_sha256", sumHex("old")), tool.CodeExecutionFailed, "has changed since expected_sha256"},
		{"edit: a binary file", editArgs("bin.dat", "a", "b"), tool.CodeExecutionFailed, "binary file"},
		{"edit: an unknown argument", `{"path":"f.txt","old_string":"a","new_string":"b","force":true}`, tool.CodeInvalidArguments, "force"},
		{"edit: expected_replacements below 1", editArgs("f.txt", "alpha", "b", "expected_replacements", 0), tool.CodeInvalidArguments, "expected_replacements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newFileEnv(t, t.TempDir())
			env.write("f.txt", "alpha\n")
			env.write("bin.dat", "a\x00b")
			before := snapshot(t, env.root)
			_, err := env.run(newEdit(), tt.args)
			wantToolError(t, err, tt.code, tt.hint)
			if diff := cmp.Diff(before, snapshot(t, env.root)); diff != "" {
				t.Errorf("the disk changed:\n%s", diff)
			}
		})
	}
}

func TestEditDryRunWritesNothing(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("f.txt", "one\ntwo\n")
	res := env.runOK(newEdit(), editArgs("f.txt", "two", "2", "dry_run", true))
	out := res.Output.(*EditOutput)
	if !out.DryRun || env.read("f.txt") != "one\ntwo\n" || out.SHA256 != sumHex("one\n2\n") {
		t.Errorf("output %+v, file %q", out, env.read("f.txt"))
	}
	checkToolDiff(t, "one\ntwo\n", out.Diff, "one\n2\n")
	if !strings.HasPrefix(res.String(), "Dry run, nothing written") {
		t.Errorf("view: %s", res.String())
	}
	_, err := env.run(newEdit(), editArgs("new.txt", "", "x", "dry_run", true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(env.root, "new.txt")); !os.IsNotExist(err) {
		t.Error("a dry run created the file")
	}
}

// TestEditKeepsLineEndingsAndBOM checks the bytes on disk: a CRLF file with a
// byte order mark stays so, the new lines included.
func TestEditKeepsLineEndingsAndBOM(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("win.txt", "\uFEFFfirst\r\nsecond\r\nthird\r\n")
	out := env.runOK(newEdit(), editArgs("win.txt", "second\n", "second\nsecond and a half\n")).Output.(*EditOutput)
	if got, want := env.read("win.txt"), "\uFEFFfirst\r\nsecond\r\nsecond and a half\r\nthird\r\n"; got != want {
		t.Errorf("file %q, want %q", got, want)
	}
	if strings.Contains(out.Diff, "\r") {
		t.Errorf("the diff shows carriage returns:\n%q", out.Diff)
	}
}

// TestEditConsecutiveEditsNeedNoRead: edit does not require a prior read
// (old_string must be found in the current content), and records what it
// wrote, so that write_file may follow without a read.
func TestEditConsecutiveEditsNeedNoRead(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("f.txt", "a\nb\nc\n")
	for _, step := range [][2]string{{"a", "A"}, {"b", "B"}, {"A\nB", "AB"}} {
		env.runOK(newEdit(), editArgs("f.txt", step[0], step[1]))
	}
	if got := env.read("f.txt"); got != "AB\nc\n" {
		t.Errorf("file %q", got)
	}
	out := env.runOK(newEdit(), editArgs("f.txt", "c", "C", "expected_sha256", sumHex("AB\nc\n"))).Output.(*EditOutput)
	if out.SHA256 != sumHex("AB\nC\n") {
		t.Errorf("sha256 %s", out.SHA256)
	}
	env.runOK(newWriteFile(), writeArgs("f.txt", "rewritten\n"))
}

// checkToolDiff applies diff to old with go-gitdiff and compares with want.
func checkToolDiff(t *testing.T, old, diff, want string) {
	t.Helper()
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil || len(files) != 1 {
		t.Fatalf("diff does not parse (%v, %d files):\n%s", err, len(files), diff)
	}
	var out bytes.Buffer
	if err := gitdiff.Apply(&out, strings.NewReader(old), files[0]); err != nil {
		t.Fatalf("diff does not apply: %v\n%s", err, diff)
	}
	if out.String() != want {
		t.Errorf("diff applied gives %q, want %q", out.String(), want)
	}
}
