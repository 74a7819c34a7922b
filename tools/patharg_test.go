package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
	"github.com/quiverkit/quiver/workspace"
)

// Outcomes of the spelling table: a code, or pass.
const (
	pass tool.Code = ""
	inv            = tool.CodeInvalidArguments
	sbx            = tool.CodeSandboxViolation
	nf             = tool.CodeNotFound
	ef             = tool.CodeExecutionFailed
)

// kindOutcome is what every tool of each kind answers to one spelling.
type kindOutcome struct {
	read   tool.Code // read_file
	write  tool.Code // write_file, edit, multi_edit, apply_patch
	dir    tool.Code // list_files, list_dirs, tree, glob_search, exec_command's workdir
	either tool.Code // grep_search, git_status_summary: a directory or a file
}

func all(c tool.Code) kindOutcome { return kindOutcome{c, c, c, c} }

// fileLike is the outcome of a spelling that names the regular file a.txt.
var fileLike = kindOutcome{pass, pass, ef, pass}

// dirSpelled is the outcome of a spelling that names an existing directory
// with a trailing slash, "." or "..": refused by file tools for its spelling.
var dirSpelled = kindOutcome{inv, inv, pass, pass}

// fileAsDir is the outcome of a regular file spelled as a directory.
var fileAsDir = kindOutcome{inv, inv, ef, ef}

// pathSpellings is the table every path tool runs. $ROOT is the workspace,
// $OUT a directory beside it (see pathFixture).
var pathSpellings = []struct {
	name string
	path string
	want kindOutcome
	hint string // what every refusal says, when they say the same
}{
	{"a file", "a.txt", fileLike, ""},
	{"a file after ./", "./a.txt", fileLike, ""},
	{"a double slash inside", "d//b.txt", fileLike, ""},
	{"a file after d/..", "d/../a.txt", fileLike, ""},
	{".. after a link whose target's parent is where the spelling climbs", "ld/../a.txt", fileLike, ""},
	{"absolute", "$ROOT/a.txt", fileLike, ""},
	{"absolute, out of the root and back in", "$ROOT/../ws/a.txt", fileLike, ""},
	{".. after a link whose target's parent is elsewhere", "lsub/../b.txt", all(inv), "symbolic link"},
	{".. after a link to the root climbs out", "d/up/../a.txt", all(sbx), "climbs out of the workspace"},
	{"ends in .. after a link to the root", "d/up/..", kindOutcome{inv, inv, sbx, sbx}, ""},
	{".. after a name that does not exist", "x/../a.txt", all(nf), "does not exist"},
	{".. after a file", "a.txt/../a.txt", all(ef), "not a directory"},
	{"a file with a trailing slash", "a.txt/", fileAsDir, ""},
	{"a file with two trailing slashes", "a.txt//", fileAsDir, ""},
	{"a file with /.", "a.txt/.", fileAsDir, ""},
	{"absolute file with a trailing slash", "$ROOT/a.txt/", fileAsDir, ""},
	{"a file with /..", "a.txt/..", fileAsDir, ""},
	{"a file in a directory with /..", "d/b.txt/..", fileAsDir, ""},
	{"a directory with a trailing slash", "d/", dirSpelled, ""},
	{"a directory with /.", "d/.", dirSpelled, ""},
	{"a directory with /..", "d/sub/..", dirSpelled, ""},
	{"a link to a directory with a trailing slash", "ld/", dirSpelled, ""},
	{"the root as ./", "./", dirSpelled, ""},
	{"the absolute root with a trailing slash", "$ROOT/", dirSpelled, ""},
	{"the root as .", ".", kindOutcome{ef, ef, pass, pass}, ""},
	{"the absolute root", "$ROOT", kindOutcome{ef, ef, pass, pass}, ""},
	{"empty", "", kindOutcome{inv, inv, pass, pass}, ""},
	{"a directory", "d", kindOutcome{ef, ef, pass, pass}, ""},
	{"a link to a directory", "ld", kindOutcome{ef, ef, pass, pass}, ""},
	{"..", "..", all(sbx), "outside the workspace"},
	{"../", "../", all(sbx), "outside the workspace"},
	{"../x", "../outside/secret.txt", all(sbx), "outside the workspace"},
	{"out after a directory", "d/../../outside", all(sbx), "outside the workspace"},
	{"a long .. chain", strings.Repeat("../", 12) + "etc/passwd", all(sbx), "outside the workspace"},
	{"absolute outside", "$OUT/secret.txt", all(sbx), "outside the workspace"},
	{"absolute directory outside", "$OUT", all(sbx), "outside the workspace"},
	{"absolute directory outside with a trailing slash", "$OUT/", kindOutcome{inv, inv, sbx, sbx}, ""},
	{"the system root", "/", kindOutcome{inv, inv, sbx, sbx}, ""},
	{"/proc/self/root", "/proc/self/root$OUT/secret.txt", all(sbx), "outside the workspace"},
	{"a link out", "link-out", all(sbx), "outside the workspace"},
	{"a file through a link out", "link-out/secret.txt", all(sbx), "outside the workspace"},
	{"a link out with a trailing slash", "link-out/", kindOutcome{inv, inv, sbx, sbx}, ""},
	{"an absolute link", "abs-link", all(sbx), "symbolic link"},
	{"a link to itself", "loop", all(sbx), "symbolic links"},
	{"NUL", "a.txt\x00.png", all(inv), "NUL"},
	{"10,000 bytes", strings.Repeat("a", 10000), all(inv), "at most 4096 bytes"},
	{"10,000 bytes of directories", strings.Repeat("d/", 5000) + "f", all(inv), "at most 4096 bytes"},
	{"not UTF-8 (U+FFFD after JSON)", "bad\xffname", kindOutcome{nf, inv, nf, nf}, ""},
	{"a new file", "new.txt", kindOutcome{nf, pass, nf, nf}, ""},
	{"a new file in a directory", "d/new.txt", kindOutcome{nf, pass, nf, nf}, ""},
	{"a new file with a trailing slash", "new.txt/", kindOutcome{inv, inv, nf, nf}, ""},
	{"a new directory with a trailing slash", "d/new/", kindOutcome{inv, inv, nf, nf}, ""},
	{"below a file", "a.txt/child", all(ef), "not a directory"},
	{"a named pipe", "fifo", all(ef), ""},
}

// pathTool is a tool with a path argument, and arguments for it that
// would succeed but for the path: exists says whether the kernel finds a
// regular file at the path, so that a writer updates it or creates it.
type pathTool struct {
	name, kind, field string
	new               func() *tool.Tool
	args              func(p string, exists bool) string
}

var pathTools = []pathTool{
	{"read_file", "read", "path", newReadFile, func(p string, _ bool) string { return jsonArgs(map[string]any{"path": p}) }},
	{"write_file", "write", "path", newWriteFile, func(p string, exists bool) string {
		args := map[string]any{"path": p, "content": "omega\n"}
		if exists {
			args["expected_sha256"] = sumHex("alpha\n")
		}
		return jsonArgs(args)
	}},
	{"edit", "write", "path", newEdit, func(p string, exists bool) string {
		if exists {
			return jsonArgs(map[string]any{"path": p, "old_string": "alpha", "new_string": "omega"})
		}
		return jsonArgs(map[string]any{"path": p, "old_string": "", "new_string": "omega\n"})
	}},
	{"multi_edit", "write", "path", newMultiEdit, func(p string, exists bool) string {
		edit := map[string]any{"old_string": "", "new_string": "omega\n"}
		if exists {
			edit = map[string]any{"old_string": "alpha", "new_string": "omega"}
		}
		return jsonArgs(map[string]any{"path": p, "edits": []any{edit}})
	}},
	{"apply_patch", "write", "patch", newApplyPatch, func(p string, exists bool) string {
		body := "*** Add File: " + p + "\n+omega\n"
		if exists {
			body = "*** Update File: " + p + "\n@@\n-alpha\n+omega\n"
		}
		return jsonArgs(map[string]any{"patch": "*** Begin Patch\n" + body + "*** End Patch"})
	}},
	{"list_files", "dir", "path", newListFiles, func(p string, _ bool) string { return jsonArgs(map[string]any{"path": p}) }},
	{"list_dirs", "dir", "path", newListDirs, func(p string, _ bool) string { return jsonArgs(map[string]any{"path": p}) }},
	{"tree", "dir", "path", newTree, func(p string, _ bool) string { return jsonArgs(map[string]any{"path": p}) }},
	{"glob_search", "dir", "base_dir", func() *tool.Tool { return NewGlobSearch(BuiltinGlob) }, func(p string, _ bool) string {
		return jsonArgs(map[string]any{"pattern": "*", "base_dir": p})
	}},
	{"exec_command", "dir", "workdir", newExecCommand, func(p string, _ bool) string {
		return jsonArgs(map[string]any{"argv": []string{"true"}, "workdir": p})
	}},
	{"grep_search", "either", "path", func() *tool.Tool { return NewGrepSearch(BuiltinGrep) }, func(p string, _ bool) string {
		return jsonArgs(map[string]any{"pattern": "alpha", "path": p})
	}},
	{"git_status_summary", "either", "path", newGitStatusSummary, func(p string, _ bool) string { return jsonArgs(map[string]any{"path": p}) }},
}

func (o kindOutcome) of(kind string) tool.Code {
	return map[string]tool.Code{"read": o.read, "write": o.write, "dir": o.dir, "either": o.either}[kind]
}

// pathFixture builds a workspace ws (root, symlinks resolved) beside a
// directory outside holding secret.txt. In ws: a.txt, d/b.txt and
// d/sub/c.txt, all "alpha\n"; links ld -> d, lsub -> d/sub, d/up -> ..,
// link-out -> ../outside, abs-link (absolute, to the secret) and loop; a
// named pipe where the system has them; a git repository when git is set.
func pathFixture(t testing.TB, git bool) (base, root string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "d", "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range map[string]string{"ws/a.txt": "alpha\n", "ws/d/b.txt": "alpha\n", "ws/d/sub/c.txt": "alpha\n", "outside/secret.txt": "secret\n"} {
		if err := os.WriteFile(filepath.Join(base, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"ld": "d", "lsub": "d/sub", "d/up": "..", "link-out": "../outside",
		"abs-link": filepath.Join(outside, "secret.txt"), "loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(filepath.Join(root, "fifo")); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
	if git {
		gitRepo{t: t.(*testing.T), dir: root}.git("init", "-q", "-b", "main")
	}
	return base, root
}

// TestPathArgsAcrossTools runs every tool that takes a path against one
// table of spellings. Every tool of a kind gives the same outcome; a refusal
// names the tool's field in its message and Details["field"] (those of
// read_file and the writers after the path was accepted, such as "no such
// file", come from the read or write itself); the check the toolkit makes
// before asking anyone (the tool's Subjects) refuses exactly as the call
// would; a refused call changes nothing on disk, inside the workspace or
// beside it; and an accepted write writes the file the kernel finds at that
// spelling.
func TestPathArgsAcrossTools(t *testing.T) {
	for _, row := range pathSpellings {
		for _, pt := range pathTools {
			t.Run(row.name+"/"+pt.name, func(t *testing.T) {
				base, root := pathFixture(t, pt.name == "git_status_summary")
				if row.path == "fifo" {
					if _, err := os.Lstat(filepath.Join(root, "fifo")); err != nil {
						t.Skip("no named pipes on this system")
					}
				}
				p := strings.NewReplacer("$ROOT", root, "$OUT", filepath.Join(base, "outside")).Replace(row.path)
				checkPathCall(t, base, root, pt, p, row.want.of(pt.kind), row.hint)
			})
		}
	}
}

// checkPathCall runs pt with path p in the workspace root and checks the
// outcome against want (and a refusal's message against hint).
func checkPathCall(t *testing.T, base, root string, pt pathTool, p string, want tool.Code, hint string) {
	kernel := p
	if !filepath.IsAbs(p) {
		kernel = root + "/" + p // not filepath.Join, which cleans p
	}
	fi, serr := os.Stat(kernel)
	args := pt.args(p, serr == nil && fi.Mode().IsRegular())
	e := &execEnv{fileEnv: newFileEnv(t, root), gate: newPrefixGate("true")}
	t.Cleanup(func() { e.shared.Close() })
	tl := pt.new()
	before := snapshot(t, base)
	var early error
	if raw, err := tooltest.Validate(tl, args); err == nil {
		_, early = tl.Subjects(raw)
	}
	res, err := e.call(tl, args)
	if early != nil && (tool.CodeOf(err) != tool.CodeOf(early) || !strings.Contains(err.Error(), tool.AsError(early).Message)) {
		t.Errorf("Subjects refused with %.300v, but the call answered %.300v", early, err)
	}
	if want == pass {
		if err != nil {
			t.Fatalf("%s %.300q: %.300v, want success", pt.name, p, err)
		}
		checkAccepted(t, pt, kernel, res)
		return
	}
	te := wantToolError(t, err, want, hint)
	if want == inv || want == sbx || pt.kind == "dir" || pt.kind == "either" {
		if te.Details["field"] != pt.field || !strings.Contains(te.Message, `"`+pt.field+`"`) {
			t.Errorf("refusal does not name the field %q (details %v): %.300s", pt.field, te.Details, te.Message)
		}
	}
	if diff := cmp.Diff(before, snapshot(t, base)); diff != "" {
		t.Errorf("a refused call changed the disk (-before +after):\n%s", diff)
	}
	noTempFiles(t, base)
}

// checkAccepted checks what an accepted call did: a reader read the file,
// a writer wrote the one the kernel finds at the path.
func checkAccepted(t *testing.T, pt pathTool, kernel string, res tool.Result) {
	switch pt.kind {
	case "read":
		if !strings.Contains(res.String(), "alpha") {
			t.Errorf("read_file %s: %q", kernel, res.String())
		}
	case "write":
		if got, err := os.ReadFile(kernel); err != nil || string(got) != "omega\n" {
			t.Errorf("after %s, the kernel reads %q (%v) at %s, want the new content", pt.name, got, err, kernel)
		}
	}
}

// FuzzPathArg holds pathArg to the kernel for any relative spelling p, in
// a workspace with files, directories and links inside it (pathFixture,
// without the links out). Where the kernel finds a regular file at p,
// pathArg accepts p for a file and names that file; where it finds a
// directory, pathArg accepts p for a directory and names that one; where
// it creates a file, pathArg's answer for a new file names it. pathArg
// answers nothing else. It may refuse what the kernel finds only when the
// kernel's walk leaves the workspace (SANDBOX_VIOLATION), or when a ".."
// after a link takes the kernel elsewhere than the cleaned spelling says
// (INVALID_ARGUMENTS): the toolkit's policy sees the cleaned spelling.
func FuzzPathArg(f *testing.F) {
	_, root := pathFixture(f, false)
	for _, name := range []string{"link-out", "abs-link", "loop", "fifo"} {
		os.Remove(filepath.Join(root, name))
	}
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ws.Close() })
	f.Fuzz(func(t *testing.T, p string) {
		if filepath.IsAbs(p) {
			return
		}
		k := kernelView(root, p)
		rel, _, err := pathArg(ws, "path", p, aFile)
		qfi := statRel(root, rel, err)
		if k.err == nil && k.fi.Mode().IsRegular() {
			k.check(t, "file", p, rel, qfi, err)
		} else if qfi != nil && qfi.Mode().IsRegular() {
			t.Fatalf("file %q: pathArg names the file %s, the kernel finds %v (%v)", p, rel, k.fi, k.err)
		}
		rel, dfi, err := pathArg(ws, "path", p, aDir)
		if k.err == nil && k.fi.IsDir() {
			k.check(t, "directory", p, rel, dfi, err)
		} else if err == nil {
			t.Fatalf("directory %q: pathArg names %s, the kernel finds %v (%v)", p, rel, k.fi, k.err)
		}
		rel, _, err = pathArg(ws, "path", p, aFile|newName)
		if err == nil && statRel(root, rel, nil) == nil && !k.leaves {
			checkCreate(t, root, p, rel)
		}
	})
}

// kernelSight is what the kernel makes of a relative path in the fixture.
type kernelSight struct {
	fi      fs.FileInfo // what os.Stat finds
	err     error
	leaves  bool // the walk passes outside the root
	differs bool // links followed, it reaches another file than the cleaned spelling
}

func kernelView(root, p string) kernelSight {
	k := kernelSight{}
	k.fi, k.err = os.Stat(root + "/" + p) // not filepath.Join, which cleans p
	elems := strings.Split(p, "/")
	for i := range elems {
		real, err := filepath.EvalSymlinks(root + "/" + strings.Join(elems[:i+1], "/"))
		if err == nil && real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
			k.leaves = true
		}
	}
	kreal, _ := filepath.EvalSymlinks(root + "/" + p)
	lreal, _ := filepath.EvalSymlinks(filepath.Join(root, p))
	k.differs = kreal != lreal
	return k
}

// check holds pathArg's answer (rel, what is there, err) for p to what the
// kernel found.
func (k kernelSight) check(t *testing.T, what, p, rel string, qfi fs.FileInfo, err error) {
	t.Helper()
	switch {
	case err == nil && qfi != nil && os.SameFile(k.fi, qfi):
	case k.leaves && tool.CodeOf(err) == sbx:
	case k.differs && tool.CodeOf(err) == inv:
	default:
		t.Fatalf("%s %q: the kernel finds %s (leaving the root: %v, elsewhere than the spelling: %v); pathArg: %q, %v",
			what, p, k.fi.Name(), k.leaves, k.differs, rel, err)
	}
}

// statRel stats the file pathArg's answer rel names, or returns nil.
func statRel(root, rel string, err error) fs.FileInfo {
	if err != nil {
		return nil
	}
	fi, err := os.Stat(filepath.Join(root, rel))
	if err != nil {
		return nil
	}
	return fi
}

// checkCreate creates a file at the kernel's p and fails unless it is
// pathArg's answer rel; then removes it.
func checkCreate(t *testing.T, root, p, rel string) {
	t.Helper()
	f, err := os.OpenFile(root+"/"+p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return // the kernel creates nothing there (a missing parent: writers make it)
	}
	kfi, _ := f.Stat()
	f.Close()
	defer os.Remove(root + "/" + p)
	if qfi := statRel(root, rel, nil); qfi == nil || !os.SameFile(kfi, qfi) {
		t.Fatalf("new file %q: the kernel created it, pathArg names %q", p, rel)
	}
}
