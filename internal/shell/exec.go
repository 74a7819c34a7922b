//go:build unix

package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// procIO is where a program runs and what its streams are.
type procIO struct {
	dir            string
	env            []string
	stdin          io.Reader
	stdout, stderr io.Writer
	lookupEnv      expand.Environ
}

// execHandler runs every program the interpreter executes — whether named
// directly, found through a variable, produced by $(...), run by eval,
// source, command, exec, a function or a trap — so this is where the gate
// sees what actually runs.
func (st *runState) execHandler(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	p := procIO{dir: hc.Dir, env: execEnv(hc.Env), stdin: hc.Stdin, stdout: hc.Stdout, stderr: hc.Stderr, lookupEnv: hc.Env}
	code := st.run(ctx, p, args)
	if code != 0 {
		return interp.ExitStatus(uint8(code))
	}
	return nil
}

// runArgv runs spec.Argv directly, without a shell.
func (st *runState) runArgv(ctx context.Context, stdin, out *os.File) int {
	env := st.spec.Env
	p := procIO{dir: st.spec.Dir, env: env, stdin: stdin, stdout: out, stderr: out, lookupEnv: expand.ListEnviron(env...)}
	return st.run(ctx, p, st.spec.Argv)
}

// run checks argv with the gate and runs it; it returns the shell's exit
// status: 127 for a program not found, 126 for one refused or not
// executable.
func (st *runState) run(ctx context.Context, p procIO, argv []string) int {
	path, err := interp.LookPathDir(p.dir, p.lookupEnv, argv[0])
	if err != nil {
		return notFound(p, argv[0])
	}
	if err := st.check(ctx, p, path, argv); err != nil {
		st.refuse(p.stderr, Join(argv), err)
		return 126
	}
	st.ran(argv)
	return st.start(ctx, p, path, argv)
}

// check asks the gate about argv in every form that could matter (see
// gateForms) and about each command it runs in turn (innerCommands), and
// refuses programs started outside the workspace.
func (st *runState) check(ctx context.Context, p procIO, path string, argv []string) error {
	if _, err := st.spec.Workspace.Rel(p.dir); err != nil {
		return fmt.Errorf("working directory %s is outside the workspace", p.dir)
	}
	for _, form := range st.gateForms(p, path, argv) {
		if err := st.spec.Gate.CheckCommand(ctx, form); err != nil {
			return err
		}
	}
	inners := innerCommands(argv, 0)
	if file, ok := interpreterProgramFile(argv); ok && !regularFile(p.dir, file) {
		// A pipe or process substitution (sh <(cmd)): a stream, as stdin is.
		inners = append(inners, []string{argv[0], StdinProgram})
	}
	for _, inner := range inners {
		if shellInternal()[inner[0]] {
			continue
		}
		if err := st.spec.Gate.CheckCommand(ctx, inner); err != nil {
			return err
		}
	}
	return nil
}

// shellInternal are the builtins of a shell that act on the shell itself
// (or whose commands innerCommands lists on their own: exec, command, eval),
// which a script given to sh -c may use without the gate being asked, as in
// the interpreter's own scripts. Built on first use (start-up cost).
var shellInternal = sync.OnceValue(func() map[string]bool {
	return setOf(":", "true", "false", "echo", "printf", "pwd", "cd", "test", "[", "shift", "unset",
		"getopts", "read", "wait", "return", "exit", "break", "continue", "set", "export", "local", "declare",
		"readonly", "typeset", "let", "exec", "command", "eval", "builtin")
})

// gateForms returns the forms of argv the gate must allow, every one of
// them:
//
//   - argv as written;
//   - when a bare name resolves to a program inside the workspace, argv with
//     that program's workspace path (./bin/git), and when a PATH changed by
//     the call resolves it elsewhere than the toolkit's PATH would, argv with
//     the full path: a rule for `git status` is not a rule for any program
//     that happens to be called git;
//   - when the program's environment changes a variable that can make it run
//     other code (UnsafeEnv), argv with those assignments in front.
func (st *runState) gateForms(p procIO, path string, argv []string) [][]string {
	forms := [][]string{argv}
	if !strings.Contains(argv[0], "/") {
		if rel, err := st.spec.Workspace.Rel(path); err == nil && !filepath.IsAbs(rel) {
			forms = append(forms, replaceName(argv, "./"+rel))
		} else if envValue(p.env, "PATH") != st.basePath {
			want, err := interp.LookPathDir(p.dir, expand.ListEnviron("PATH="+st.basePath), argv[0])
			if err != nil || want != path {
				forms = append(forms, replaceName(argv, path))
			}
		}
	}
	if assigns := st.unsafeAssignments(p.env); len(assigns) > 0 {
		forms = append(forms, append(assigns, argv...))
	}
	return forms
}

func replaceName(argv []string, name string) []string {
	out := append([]string{name}, argv[1:]...)
	return out
}

// unsafeAssignments lists, sorted, the NAME=VALUE entries of env that set an
// UnsafeEnv variable to something other than the toolkit's environment has.
func (st *runState) unsafeAssignments(env []string) []string {
	var out []string
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !UnsafeEnv(name) {
			continue
		}
		if base, ok := st.base[name]; !ok || base != value {
			out = append(out, kv)
		}
	}
	sort.Strings(out)
	return out
}

// maxCapture bounds what one program may write into a $(...) capture, which
// the interpreter holds in memory.
const maxCapture = 16 << 20

// start starts a checked program in the run's group and waits for it.
// What git's programs get (git's profile, the guard over .git) the start
// path gives them (sandbox.Process); a refusal of what a git did there is
// reported on standard error and fails the program.
func (st *runState) start(ctx context.Context, p procIO, path string, argv []string) int {
	if st.group.Profile().Confined() && !kernelExecutable(path) {
		// The launcher's exec would fail with ENOEXEC; run it as bash would.
		return st.runScriptFile(ctx, p, path, argv)
	}
	proc := st.group.Command(path)
	proc.Args, proc.Env, proc.Dir = argv, p.env, p.dir
	proc.Stdin, proc.Stdout, proc.Stderr = p.stdin, p.stdout, p.stderr
	proc.Terminal = st.spec.TTY != nil
	if _, ok := p.stdout.(*os.File); !ok {
		proc.Stdout = &limitWriter{w: p.stdout, n: maxCapture, name: argv[0], stderr: p.stderr}
	}
	err := proc.Start()
	switch {
	case errors.Is(err, syscall.ENOEXEC):
		return st.runScriptFile(ctx, p, path, argv)
	case errors.Is(err, sandbox.ErrGroupClosed):
		return 126
	case err != nil:
		fmt.Fprintf(p.stderr, "%s: %v\n", argv[0], unwrapExec(err))
		return 126
	}
	err = proc.Wait()
	switch {
	case errors.Is(err, sandbox.ErrGitRefused):
		fmt.Fprintf(p.stderr, "quiver: %v\n", err)
		return max(proc.ExitStatus(), 1)
	case err != nil && proc.State() == nil:
		// Not an exit status: the wait itself failed. (A group's leader has
		// no State until the group closes; its Wait fails only so.)
		fmt.Fprintf(p.stderr, "%s: %v\n", argv[0], err)
		return 1
	}
	return proc.ExitStatus()
}

// kernelExecutable reports whether the kernel would exec the file at path
// itself: an ELF binary or a #! script. Anything else is a shell script
// without a #! line, which shells run themselves.
func kernelExecutable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true // let the exec report the error
	}
	defer f.Close()
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	return n >= 2 && string(head[:2]) == "#!" || n == 4 && string(head[:]) == "\x7fELF"
}

// notFound reports a program that cannot be run as bash does: 127 when
// there is no such file, 126 when it is a directory or not executable.
func notFound(p procIO, name string) int {
	if strings.Contains(name, "/") {
		abs := name
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(p.dir, name)
		}
		if fi, err := os.Stat(abs); err == nil {
			why := "permission denied"
			if fi.IsDir() {
				why = "is a directory"
			}
			fmt.Fprintf(p.stderr, "%s: %s\n", name, why)
			return 126
		}
		fmt.Fprintf(p.stderr, "%s: no such file or directory\n", name)
		return 127
	}
	fmt.Fprintf(p.stderr, "%s: command not found\n", name)
	return 127
}

func unwrapExec(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// runScriptFile runs a file the kernel would not execute (a script without
// a #! line) as other shells do: as a shell script — but in this run's
// interpreter, with its handlers, so the gate sees its commands too.
func (st *runState) runScriptFile(ctx context.Context, p procIO, path string, argv []string) int {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(p.stderr, "%s: %v\n", argv[0], unwrapExec(err))
		return 126
	}
	if line, _, _ := bytes.Cut(src, []byte("\n")); bytes.IndexByte(line, 0) >= 0 {
		fmt.Fprintf(p.stderr, "%s: cannot execute binary file\n", argv[0])
		return 126
	}
	file, err := syntax.NewParser().Parse(bytes.NewReader(src), argv[0])
	if err != nil {
		fmt.Fprintf(p.stderr, "%v\n", err)
		return 2
	}
	r, err := st.newRunner(p.dir, expand.ListEnviron(p.env...), p.stdin, p.stdout, p.stderr)
	if err != nil {
		fmt.Fprintf(p.stderr, "%s: %v\n", argv[0], err)
		return 126
	}
	r.Params = argv[1:]
	return shellStatus(p.stderr, r.Run(ctx, file))
}

// limitWriter passes on at most n bytes; beyond that it fails, which makes
// os/exec stop copying and the program get EPIPE.
type limitWriter struct {
	w      io.Writer
	n      int64
	name   string
	stderr io.Writer
	warned bool
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= l.n {
		l.n -= int64(len(p))
		return l.w.Write(p)
	}
	n, _ := l.w.Write(p[:l.n])
	l.n = 0
	if !l.warned {
		l.warned = true
		fmt.Fprintf(l.stderr, "quiver: output of %s captured by $(...) exceeds %d MiB; cut\n", l.name, maxCapture>>20)
	}
	return n, errCaptureFull
}

var errCaptureFull = errors.New("capture limit reached")

// open is the interpreter's open handler: every file the shell itself opens
// (redirections, exec 3>file, source, $(<file)) is opened through the
// workspace, relative to the shell's current directory, and every file
// opened for writing must pass the gate, which refuses protected paths
// whoever approved the line (openChecked: the file opened is the one the
// gate saw).
func (st *runState) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	if path == os.DevNull {
		return os.OpenFile(os.DevNull, flag, perm)
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(hc.Dir, path)
	}
	if dir, rel, ok := st.spec.Sandbox.Scratch(abs); ok {
		return openScratch(dir, rel, flag, perm)
	}
	ws := st.spec.Workspace
	rel, err := ws.Rel(abs)
	if err != nil {
		if writing(flag) {
			st.refuse(hc.Stderr, "write "+path, err)
			return nil, &os.PathError{Op: "open", Path: path, Err: errRefused}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("outside the workspace")}
	}
	if !writing(flag) {
		f, err := ws.Open(rel)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: errors.New(message(err))}
		}
		return f, nil
	}
	f, refusal, err := st.openChecked(ctx, rel, flag, perm)
	switch {
	case refusal != nil:
		st.refuse(hc.Stderr, "write "+rel, refusal)
		return nil, &os.PathError{Op: "open", Path: path, Err: errRefused}
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: path, Err: unwrapExec(err)}
	}
	return f, nil
}

// openScratch opens rel inside dir, one of the sandbox's writable roots
// outside the workspace (the call's TMPDIR, the operator's extra roots),
// through an os.Root so that a symlink cannot lead out of it.
func openScratch(dir, rel string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if !writing(flag) {
		return root.Open(rel)
	}
	return openForWriting(root, rel, flag, perm)
}

// openForWriting opens a regular file for writing, without blocking on a
// FIFO: rel is relative to root, or absolute when the workspace serves
// paths outside it.
func openForWriting(root *os.Root, rel string, flag int, perm os.FileMode) (*os.File, error) {
	var f *os.File
	var err error
	if filepath.IsAbs(rel) {
		f, err = os.OpenFile(rel, flag|syscall.O_NONBLOCK, perm)
	} else {
		f, err = root.OpenFile(rel, flag|syscall.O_NONBLOCK, perm)
	}
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, errors.New("not a regular file")
	}
	return f, nil
}

func writing(flag int) bool {
	return flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0
}

// message returns the message of a *tool.Error, or err's text.
func message(err error) string {
	var te *tool.Error
	if errors.As(err, &te) {
		return te.Message
	}
	return err.Error()
}

// execEnv returns the exported variables of the shell's environment, as
// programs receive them.
func execEnv(env expand.Environ) []string {
	list := make([]string, 0, 32)
	for name, vr := range env.Each {
		if !vr.IsSet() {
			// Set in an outer scope, unset in this one: drop the outer value.
			for i, kv := range list {
				if strings.HasPrefix(kv, name+"=") {
					list[i] = ""
				}
			}
		}
		if vr.Exported && vr.Kind == expand.String {
			list = append(list, name+"="+vr.String())
		}
	}
	out := list[:0]
	for _, kv := range list {
		if kv != "" {
			out = append(out, kv)
		}
	}
	return out
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		m[name] = value
	}
	return m
}

func stringReader(s string) io.Reader { return strings.NewReader(s) }
