package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
)

func writeArgs(p, content string, extra ...any) string {
	m := map[string]any{"path": p, "content": content}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return jsonArgs(m)
}

func TestWriteFileCreates(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		content string
	}{
		{"write_file: a new file in the root", "new.txt", "hello\n"},
		{"write_file: missing parent directories are created", "a/b/c/deep.go", "package c\n"},
		{"write_file: empty content makes an empty file", "empty", ""},
		{"write_file: content without a final newline is written as is", "raw", "no newline"},
		{"write_file: an absolute path inside the workspace", "", "abs\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			env := newFileEnv(t, root)
			p := tt.path
			if p == "" {
				p = filepath.Join(env.ws.Dir(), "abs.txt")
			}
			out := env.runOK(newWriteFile(), writeArgs(p, tt.content)).Output.(*WriteFileOutput)
			rel, _ := env.ws.Rel(p)
			want := &WriteFileOutput{Path: rel, Bytes: len(tt.content), Created: true, SHA256: sumHex(tt.content)}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if got := env.read(rel); got != tt.content {
				t.Errorf("file holds %q", got)
			}
			if fi, _ := os.Stat(filepath.Join(root, rel)); fi.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, want 0644", fi.Mode().Perm())
			}
		})
	}
}

func TestWriteFileCreateDirsFalse(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	_, err := env.run(newWriteFile(), writeArgs("missing/x.txt", "x", "create_dirs", false))
	wantToolError(t, err, tool.CodeExecutionFailed, "directory missing does not exist", "create_dirs: true")
	if _, err := os.Stat(filepath.Join(env.root, "missing")); !os.IsNotExist(err) {
		t.Errorf("the directory was created: %v", err)
	}
}

// TestWriteFileReadBeforeOverwrite covers the guard: an existing file is
// replaced only when its current content was seen (read or written by the
// toolkit) or named by expected_sha256.
func TestWriteFileReadBeforeOverwrite(t *testing.T) {
	const old = "precious work\n"
	tests := []struct {
		name    string
		prepare func(env *fileEnv)
		extra   []any
		code    tool.Code // "" for success
		hints   []string
	}{
		{name: "write_file: overwriting an unread file is refused", code: tool.CodeExecutionFailed,
			hints: []string{"has not been read", "call read_file on it first", "expected_sha256"}},
		{name: "write_file: overwriting after a read succeeds", prepare: func(env *fileEnv) { env.markRead("f.txt") }},
		{name: "write_file: a file changed after the read is refused", code: tool.CodeExecutionFailed,
			prepare: func(env *fileEnv) { env.markRead("f.txt"); env.write("f.txt", "changed behind your back\n") },
			hints:   []string{"has changed since the last read", "read it again"}},
		{name: "write_file: a matching expected_sha256 stands for the read", extra: []any{"expected_sha256", sumHex(old)}},
		{name: "write_file: expected_sha256 is not case-sensitive", extra: []any{"expected_sha256", upper(sumHex(old))}},
		{name: "write_file: a wrong expected_sha256 is refused", extra: []any{"expected_sha256", sumHex("other")},
			code: tool.CodeExecutionFailed, hints: []string{"has changed since expected_sha256", sumHex(old)}},
		{name: "write_file: a file the toolkit wrote may be written again", prepare: func(env *fileEnv) {
			env.runOK(newWriteFile(), writeArgs("f.txt", "first version\n", "expected_sha256", sumHex(old)))
		}},
		{name: "write_file: a file the toolkit edited may be written", prepare: func(env *fileEnv) {
			env.runOK(newEdit(), jsonArgs(map[string]any{"path": "f.txt", "old_string": "precious", "new_string": "edited"}))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newFileEnv(t, t.TempDir())
			env.write("f.txt", old)
			if tt.prepare != nil {
				tt.prepare(env)
			}
			before := env.read("f.txt")
			res, err := env.run(newWriteFile(), writeArgs("f.txt", "replacement\n", tt.extra...))
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if out := res.Output.(*WriteFileOutput); out.Created || env.read("f.txt") != "replacement\n" {
					t.Errorf("output %+v, file %q", out, env.read("f.txt"))
				}
				return
			}
			te := wantToolError(t, err, tt.code, tt.hints...)
			if !te.Retriable {
				t.Error("a refused overwrite should be retriable after a read")
			}
			if got := env.read("f.txt"); got != before {
				t.Errorf("file changed to %q", got)
			}
		})
	}
}

// In a one-call session (quiver call) no read of another call counts, so
// the refusal names the one way left, expected_sha256, and that way works.
func TestWriteFileOneCallSessionNeedsSHA(t *testing.T) {
	const old = "precious work\n"
	env := newFileEnv(t, t.TempDir())
	env.write("f.txt", old)
	tl := newWriteFile()
	run := func(extra ...any) (tool.Result, error) {
		raw, err := tooltest.Validate(tl, writeArgs("f.txt", "replacement\n", extra...))
		if err != nil {
			t.Fatal(err)
		}
		return tl.Execute(tool.WithOneCallSession(context.Background()), env.context(tl.Name), raw)
	}
	_, err := run()
	te := wantToolError(t, err, tool.CodeExecutionFailed, "only call of its session", "expected_sha256")
	if strings.Contains(te.Message, "read_file on it first") || !te.Retriable {
		t.Errorf("%q (retriable %v): want no advice to read first, which cannot help here", te.Message, te.Retriable)
	}
	if _, err := run("expected_sha256", sumHex(old)); err != nil || env.read("f.txt") != "replacement\n" {
		t.Errorf("with expected_sha256: %v, file %q", err, env.read("f.txt"))
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func TestWriteFileSameContentNeedsNoRead(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("same.txt", "unchanged\n")
	out := env.runOK(newWriteFile(), writeArgs("same.txt", "unchanged\n")).Output.(*WriteFileOutput)
	if out.Created || out.Bytes != len("unchanged\n") {
		t.Errorf("output %+v", out)
	}
	// Having seen the content now, the model may replace it.
	env.runOK(newWriteFile(), writeArgs("same.txt", "changed\n"))
	if got := env.read("same.txt"); got != "changed\n" {
		t.Errorf("file holds %q", got)
	}
}

func TestWriteFileKeepsModeAndLinks(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("script.sh", "#!/bin/sh\necho old\n")
	if err := os.Chmod(filepath.Join(env.root, "script.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("script.sh", filepath.Join(env.root, "link.sh")); err != nil {
		t.Fatal(err)
	}
	env.markRead("link.sh")
	env.runOK(newWriteFile(), writeArgs("link.sh", "#!/bin/sh\necho new\n"))
	if got := env.read("script.sh"); got != "#!/bin/sh\necho new\n" {
		t.Errorf("the link's target holds %q", got)
	}
	fi, err := os.Stat(filepath.Join(env.root, "script.sh"))
	if err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v (%v), want 0750", fi.Mode().Perm(), err)
	}
	if li, err := os.Lstat(filepath.Join(env.root, "link.sh")); err != nil || li.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symbolic link was replaced: %v", err)
	}
	noTempFiles(t, env.root)
}

func TestWriteFileExpectedSumOnMissingFile(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	_, err := env.run(newWriteFile(), writeArgs("nope.txt", "x", "expected_sha256", sumHex("x")))
	wantToolError(t, err, tool.CodeExecutionFailed, "does not exist", "expected_sha256")
	if _, err := os.Stat(filepath.Join(env.root, "nope.txt")); !os.IsNotExist(err) {
		t.Error("the file was created")
	}
}

func TestWriteFileRejectsBadSHAArgument(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("f.txt", "x")
	_, err := env.run(newWriteFile(), writeArgs("f.txt", "y", "expected_sha256", "not-a-hash"))
	wantToolError(t, err, tool.CodeInvalidArguments, "expected_sha256")
}
