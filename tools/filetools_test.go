package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
	"github.com/quiverkit/quiver/workspace"
)

// fileEnv runs file tools the way the pipeline does — arguments validated
// against the tool's schema, then executed — with one toolkit-wide scope, so
// that shared dependencies (the workspace, the read tracker) live across
// calls as they do in a toolkit.
type fileEnv struct {
	t      testing.TB
	root   string
	ws     *workspace.Workspace
	shared *tool.Scope
	calls  int
}

func newFileEnv(t testing.TB, root string) *fileEnv {
	t.Helper()
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	shared := tool.NewScope(nil, nil)
	shared.Provide(workspace.Key.ID, ws)
	return &fileEnv{t: t, root: root, ws: ws, shared: shared}
}

func (e *fileEnv) context(name string) tool.Context {
	e.calls++
	return tool.NewContext("call-"+name, name, nil, tool.NewScope(nil, e.shared))
}

// run validates args (a JSON object) against tl's schema and executes tl.
func (e *fileEnv) run(tl *tool.Tool, args string) (tool.Result, error) {
	e.t.Helper()
	raw, err := tooltest.Validate(tl, args)
	if err != nil {
		return tool.Result{}, err
	}
	return tl.Execute(context.Background(), e.context(tl.Name), raw)
}

// runOK runs tl and fails the test on an error.
func (e *fileEnv) runOK(tl *tool.Tool, args string) tool.Result {
	e.t.Helper()
	res, err := e.run(tl, args)
	if err != nil {
		e.t.Fatalf("%s %s: %v", tl.Name, args, err)
	}
	return res
}

// markRead records the file's current content as read, as read_file does.
func (e *fileEnv) markRead(rel string) {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	recordRead(context.Background(), e.context("read_file"), rel, hex.EncodeToString(sum[:]))
}

func (e *fileEnv) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *fileEnv) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func jsonArgs(kv map[string]any) string {
	b, err := json.Marshal(kv)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func sumHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// wantToolError fails unless err is a *tool.Error with code and a message
// holding every one of parts.
func wantToolError(t testing.TB, err error, code tool.Code, parts ...string) *tool.Error {
	t.Helper()
	var te *tool.Error
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T), want a *tool.Error with code %s", err, err, code)
	}
	if te.Code != code {
		t.Errorf("code %s, want %s (message: %s)", te.Code, code, te.Message)
	}
	for _, p := range parts {
		if !strings.Contains(te.Message, p) {
			t.Errorf("message does not say %q:\n%s", p, te.Message)
		}
	}
	return te
}

// snapshot describes every entry below dir: mode, symlink target, and a hash
// of regular files' content, so that a test can show the disk unchanged.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			out[p] = "error: " + err.Error()
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case fi.Mode().IsRegular():
			if b, err := os.ReadFile(p); err == nil {
				desc += " " + sumHex(string(b))
			} else {
				desc += " unreadable"
			}
		}
		out[p] = desc
		return nil
	})
	return out
}

func noTempFiles(t testing.TB, dir string) {
	t.Helper()
	var left []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".quiver-") {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// badPathFixture builds a workspace (root) beside a directory it must not
// reach (outside), holding the awkward entries of the bad-input corpus.
func badPathFixture(t *testing.T) (base, root, outside string) {
	t.Helper()
	base = t.TempDir()
	root = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(outside, "secret.txt"): "secret\n",
		filepath.Join(root, "a.txt"):         "alpha\n",
		filepath.Join(root, "dir", "in.txt"): "inner\n",
		filepath.Join(root, "bad\xffname"):   "non-UTF-8 name\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"link-out": "../outside",                         // a directory outside, by a relative link
		"abs-link": filepath.Join(outside, "secret.txt"), // a file outside, by an absolute link
		"loop":     "loop",
		"loop-a":   "loop-b",
		"loop-b":   "loop-a",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(filepath.Join(root, "fifo")); err != nil {
		t.Fatal(err)
	}
	return base, root, outside
}

// TestWritersRefuseNonUTF8Names calls the writing tools from Go, where a
// path may hold bytes that are not UTF-8 (JSON cannot carry them).
func TestWritersRefuseNonUTF8Names(t *testing.T) {
	base, root, _ := badPathFixture(t)
	env := newFileEnv(t, root)
	before := snapshot(t, base)
	ctx := context.Background()
	_, err := writeFile(ctx, env.context("write_file"), WriteFileInput{Path: "bad\xffname", Content: "x"})
	wantToolError(t, err, tool.CodeInvalidArguments, "not valid UTF-8")
	_, err = editFile(ctx, env.context("edit"), EditInput{Path: "bad\xffname", OldString: "non", NewString: "x"})
	wantToolError(t, err, tool.CodeInvalidArguments, "not valid UTF-8")
	if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
		t.Errorf("the disk changed (-before +after):\n%s", diff)
	}
}

// TestListingShowsNonUTF8NamesEscaped: a name that is not UTF-8 is listed
// with its odd byte as \xff, not silently turned into U+FFFD.
func TestListingShowsNonUTF8NamesEscaped(t *testing.T) {
	_, root, _ := badPathFixture(t)
	env := newFileEnv(t, root)
	out := env.runOK(newListFiles(), `{}`).Output.(*ListFilesOutput)
	var names []string
	for _, f := range out.Files {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"a.txt", `bad\xffname`}, names); diff != "" {
		t.Errorf("list_files names (-want +got):\n%s", diff)
	}
	tree := env.runOK(newTree(), `{}`).Output.(*TreeOutput)
	if !strings.Contains(tree.Tree, `bad\xffname`) {
		t.Errorf("tree does not show the escaped name:\n%s", tree.Tree)
	}
}

// childEnv names the role of a child process the tests below start by
// running this test binary again; childDir is the workspace it works in.
const (
	childEnv = "QUIVER_FILETOOLS_CHILD"
	childDir = "QUIVER_FILETOOLS_DIR"
)

// TestFileToolsChild is not a test of its own: it is the body of the child
// processes the tests below start (the os/exec helper-process pattern), and
// returns at once in a normal run.
func TestFileToolsChild(t *testing.T) {
	dir := os.Getenv(childDir)
	switch os.Getenv(childEnv) {
	case "unreadable":
		checkUnreadable(t, dir)
	case "fsize":
		childWriteOverSizeLimit(t, dir)
	case "stall":
		childStallMidWrite(t, dir)
	}
}

// runChild runs TestFileToolsChild in a new process of this test binary with
// the given role, and returns its output and exit error.
func runChild(t *testing.T, exe, role, dir string, attr *syscall.SysProcAttr) ([]byte, *exec.Cmd, error) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^TestFileToolsChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+role, childDir+"="+dir)
	cmd.SysProcAttr = attr
	out, err := cmd.CombinedOutput()
	return out, cmd, err
}

// unreadableFixture makes a file and a directory nobody but root may read.
func unreadableFixture(t *testing.T, root string) {
	t.Helper()
	for p, c := range map[string]string{"noread.txt": "alpha\n", "noreaddir/f.txt": "x\n", "ok.txt": "ok\n"} {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"noread.txt", "noreaddir"} {
		if err := os.Chmod(filepath.Join(root, p), 0); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "noreaddir"), 0o755) })
}

// checkUnreadable is the part of the bad-input corpus about permissions:
// a file the process may not read, and a directory it may not list.
func checkUnreadable(t *testing.T, root string) {
	env := newFileEnv(t, root)
	unreadable := map[string]string{"write_file": "noread.txt", "edit": "noread.txt", "multi_edit": "noread.txt",
		"tree": "noreaddir", "list_dirs": "noreaddir", "list_files": "noreaddir"}
	for _, pt := range pathTools {
		if p, ok := unreadable[pt.name]; ok {
			_, err := env.run(pt.new(), pt.args(p, true))
			wantToolError(t, err, tool.CodeExecutionFailed, "permission denied")
		}
	}
	tree := env.runOK(newTree(), `{}`).Output.(*TreeOutput)
	if !strings.Contains(tree.Tree, "noreaddir/ [permission denied]") {
		t.Errorf("tree does not mark the unreadable directory:\n%s", tree.Tree)
	}
}

func copyExecutable(t *testing.T, dst string) {
	t.Helper()
	src, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFailureBeforeRename: when writing the temporary file fails (here:
// the file size limit is hit halfway), write_file, edit and multi_edit
// report it, the old content is intact, and no temporary file is left.
func TestWriteFailureBeforeRename(t *testing.T) {
	root := t.TempDir()
	env := newFileEnv(t, root)
	env.write("big.txt", "old content\n")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runChild(t, exe, "fsize", root, nil)
	if err != nil || !strings.Contains(string(out), "--- PASS: TestFileToolsChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if got := env.read("big.txt"); got != "old content\n" {
		t.Errorf("big.txt = %q after failed writes", got)
	}
	noTempFiles(t, root)
}

// stallingReader gives size bytes, then blocks forever: a writer reading
// from it is stuck in the middle of its temporary file.
type stallingReader struct{ left int }

func (r *stallingReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		select {}
	}
	n := min(len(p), r.left)
	for i := range p[:n] {
		p[i] = 'x'
	}
	r.left -= n
	return n, nil
}

const stallBytes = 1 << 20

// childStallMidWrite writes target.txt through the workspace's atomic write
// (what every writing tool uses) from a source that stalls after 1 MiB; the
// parent kills the process there.
func childStallMidWrite(t *testing.T, root string) {
	env := newFileEnv(t, root)
	err := env.ws.WriteFileFrom("target.txt", &stallingReader{left: stallBytes}, 0o644)
	t.Fatalf("the stalled write returned: %v", err)
}

// TestKilledWriter kills a process in the middle of an atomic write (after
// 1 MiB of the new content, before the rename): the old content is intact.
// A killed process cannot remove its temporary file; the next write of the
// file removes it (its lock died with the writer), so none is left after.
func TestKilledWriter(t *testing.T) {
	root := t.TempDir()
	env := newFileEnv(t, root)
	env.write("target.txt", "old content\n")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestFileToolsChild$")
	cmd.Env = append(os.Environ(), childEnv+"=stall", childDir+"="+root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tmp := waitForTemp(t, root, "target.txt", stallBytes)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if got := env.read("target.txt"); got != "old content\n" {
		t.Fatalf("target.txt = %q after the writer was killed", got[:min(len(got), 40)])
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the killed writer's temporary file is gone before any cleanup: %v", err)
	}
	env.runOK(newEdit(), jsonArgs(map[string]any{"path": "target.txt", "old_string": "old", "new_string": "new"}))
	if got := env.read("target.txt"); got != "new content\n" {
		t.Errorf("target.txt = %q after the next edit", got)
	}
	noTempFiles(t, root)
}

// waitForTemp waits until the temporary file of an atomic write of name holds
// at least size bytes, and returns its path.
func waitForTemp(t *testing.T, dir, name string, size int64) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		matches, _ := filepath.Glob(filepath.Join(dir, "."+name+".quiver-*"))
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.Size() >= size {
				return m
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no temporary file of %s with %d bytes appeared", name, size)
	return ""
}
