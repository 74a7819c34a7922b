package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/quiverkit/quiver/sandbox/launch"
)

// unsupportedEnv, when set, makes [Check] report the sandbox unavailable
// with its value as the reason: a test hook that simulates a kernel without
// Landlock. It can only make Quiver refuse more, never less.
const unsupportedEnv = "QUIVER_SANDBOX_UNSUPPORTED"

var probe struct {
	once sync.Once
	err  error
}

// Check reports whether this machine can enforce every profile: nil, or an
// [*UnavailableError] naming what is missing. The kernel is probed once,
// by starting the launcher in the namespaces a profile uses, with a
// protected path to mount.
func Check() error {
	if why := os.Getenv(unsupportedEnv); why != "" {
		return &UnavailableError{Missing: why}
	}
	probe.once.Do(func() { probe.err = checkKernel() })
	return probe.err
}

func checkKernel() error {
	if abi := launch.ABI(); abi < launch.MinABI {
		have := "none"
		if abi > 0 {
			have = fmt.Sprintf("ABI %d", abi)
		}
		return &UnavailableError{Missing: fmt.Sprintf("Landlock ABI %d or later (this kernel has %s)", launch.MinABI, have)}
	}
	dir, err := os.MkdirTemp("", "quiver-probe-*")
	if err != nil {
		return &UnavailableError{Missing: "a temporary directory for the probe", Err: err}
	}
	defer os.RemoveAll(dir)
	protected := dir + "/protected"
	if err := os.WriteFile(protected, nil, 0o600); err != nil {
		return &UnavailableError{Missing: "a temporary directory for the probe", Err: err}
	}
	var stderr bytes.Buffer
	cmd := &exec.Cmd{Stderr: &stderr}
	// No program: the launcher confines itself and exits 0.
	if err := launch.Command(launch.Spec{Workspace: dir, Protected: []string{protected}, Args: []string{"probe"}}, cmd); err != nil {
		return &UnavailableError{Missing: "a launcher", Err: err}
	}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &UnavailableError{Missing: "a working launcher: " + strings.TrimSpace(stderr.String()), Err: err}
		}
		return &UnavailableError{Missing: "unprivileged user namespaces (" + err.Error() + ")", Err: err}
	}
	return nil
}

func (p *Profile) wrap(cmd *exec.Cmd) error {
	if p.Mode == WorkspaceWrite {
		p.ensureHooksDir()
	}
	s := p.spec()
	s.Protected = expandGlobs(p.Protected)
	s.Path, s.Args = cmd.Path, cmd.Args
	return launch.Command(s, cmd)
}

// spec is the launch spec of p, without a program.
func (p *Profile) spec() launch.Spec {
	return launch.Spec{ReadOnly: p.Mode == ReadOnly, Workspace: p.Workspace, Writable: p.Writable,
		Protected: p.Protected, Network: p.Network, TempDir: p.TempDir,
		Readable: p.Readable, Limited: p.Readable != nil}
}

// MayWrite reports whether a process started under p may write path, or
// create it (symbolic links resolved): any path when p is unconfined, else
// a path in a tree p makes writable. Quiver asks it of the programs it
// starts for itself (quiver-models), which must not be ones its tools could
// have planted.
func (p *Profile) MayWrite(path string) bool {
	if !p.Confined() {
		return true
	}
	return p.spec().MayWrite(path)
}

// Describe says what the sandbox uses on this machine.
func Describe() string {
	return fmt.Sprintf("Landlock ABI %d; user, mount and network namespaces", launch.ABI())
}

// expandGlobs replaces each protected entry that is a glob (the operator's
// "*.pem") with the paths it matches now, when the process starts.
func expandGlobs(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if !strings.ContainsAny(p, "*?[{") {
			out = append(out, p)
			continue
		}
		matches, _ := doublestar.FilepathGlob(p, doublestar.WithNoFollow())
		out = append(out, matches...)
	}
	return out
}

// ensureHooksDir creates an empty .git/hooks in the workspace when .git
// exists without one: a protected path that does not exist cannot be
// mounted over, and a hooks directory a confined process created would run
// its hooks in the user's next, unconfined, git commit.
func (p *Profile) ensureHooksDir() {
	git := filepath.Join(p.Workspace, ".git")
	if fi, err := os.Lstat(git); err != nil || !fi.IsDir() {
		return
	}
	os.Mkdir(filepath.Join(git, "hooks"), 0o755) // exists already, most often
}
