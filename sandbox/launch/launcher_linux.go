package launch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// selfLauncher is the running executable, which every binary linking this
// package can serve as: it is already running, so starting it again runs
// nothing new.
const selfLauncher = "/proc/self/exe"

// SiblingName is the launcher program that may sit beside the running
// executable (cmd/quiver-sandbox).
const SiblingName = "quiver-sandbox"

// runningExecutable is the running executable's path, links resolved, or
// "" when the kernel cannot say.
var runningExecutable = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		return r
	}
	return ""
})

// launcher returns the program to start as the launcher of s, exe being
// the running executable: the quiver-sandbox beside exe when
// [Spec.TrustedSibling] accepts it, else exe itself through /proc/self/exe.
// Nothing in the environment can name another, and nothing is looked up
// through PATH: the launcher runs before the confinement it applies.
func launcher(s Spec, exe string) string {
	if exe == "" {
		return selfLauncher
	}
	sibling := filepath.Join(filepath.Dir(exe), SiblingName)
	if s.TrustedSibling(sibling) == nil {
		return sibling
	}
	return selfLauncher
}

// TrustedSibling returns nil when path may be started as the launcher of
// s, else why not. It is decided at each start, against the profile that
// start uses, and asks what a planted launcher cannot satisfy:
//
//   - a regular file, not a link, executable;
//   - in a directory, and itself, that no profile-confined process of s
//     could write or create, the links of the path resolved (s's write
//     roots are counted even when s is read-only: an earlier call may
//     have written what a read-only one would start);
//   - the file and its directory writable by their owner alone, and owned
//     by the user Quiver runs as or by root, so that another local user
//     cannot have put it there either.
func (s Spec) TrustedSibling(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not a regular executable file (%s)", path, fi.Mode())
	}
	s.ReadOnly = false
	dir := filepath.Dir(path)
	for _, p := range []string{path, dir} {
		if s.MayWrite(p) {
			return fmt.Errorf("%s lies where a confined process may write", p)
		}
	}
	for _, p := range []string{path, dir} {
		if err := ownedSafely(p); err != nil {
			return err
		}
	}
	return nil
}

// ownedSafely reports whether path (links followed) is owned by this user
// or root, and writable by its owner alone.
func ownedSafely(path string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if st.Uid != uint32(os.Getuid()) && st.Uid != 0 {
		return fmt.Errorf("%s belongs to uid %d, neither this user nor root", path, st.Uid)
	}
	if st.Mode&0o022 != 0 {
		return fmt.Errorf("%s is writable by its group or by others", path)
	}
	return nil
}

// Probe rewrites cmd to start the running executable as the launcher of s
// with no program: it confines itself as a call under s would, and exits
// 0. It never starts a sibling launcher: a probe that is not made for a
// real call's profile could not judge one.
func Probe(s Spec, cmd *exec.Cmd) error {
	s.Path, s.Args = "", []string{"probe"}
	if err := Command(s, cmd); err != nil {
		return err
	}
	cmd.Path = selfLauncher
	return nil
}

// LauncherOf is the launcher Command starts for s: the path a real call
// runs, which the sandbox probes once before its first use.
func LauncherOf(s Spec) string { return launcher(s, runningExecutable()) }

// MissingError is the refusal to start s on a kernel, or with a launch,
// that cannot enforce it; Missing names what is missing.
type MissingError struct{ Missing string }

func (e *MissingError) Error() string { return "sandbox: missing " + e.Missing }

// enforceable returns a *MissingError when s, started with sys, would rely
// on what this kernel lacks:
//
//   - below Landlock ABI 6 nothing scopes signals but a PID namespace, so
//     one must be in sys (a confined process could otherwise signal the
//     host's processes);
//   - unix_sockets naming paths holds only with ABI 9, which limits
//     connect(2) to them; seccomp alone could only allow every socket.
//
// What ABI 5 and 6 add besides is covered on every ABI by seccomp (TIOCSTI,
// abstract sockets) and the new session.
func (s Spec) enforceable(sys *syscall.SysProcAttr) error {
	abi := s.UsedABI()
	var missing []string
	if abi < ScopeABI && sys.Cloneflags&syscall.CLONE_NEWPID == 0 {
		missing = append(missing, fmt.Sprintf("Landlock ABI %d (signal scoping) or a PID namespace, which keeps signals inside the sandbox (Landlock here: ABI %d)", ScopeABI, abi))
	}
	if paths, _ := s.unixPaths(); len(paths) > 0 && abi < ResolveUnixABI {
		missing = append(missing, fmt.Sprintf(`Landlock ABI %d, which holds [sandbox] unix_sockets to the paths it names (Landlock here: ABI %d); list "*" instead to allow every Unix socket`, ResolveUnixABI, abi))
	}
	if len(missing) == 0 {
		return nil
	}
	return &MissingError{Missing: strings.Join(missing, "; ")}
}

// RightsUsed names the Landlock rights and scopes a launcher handles at
// abi (see handledFS): each is refused wherever a rule does not grant it.
func RightsUsed(abi int) []string {
	names := []string{"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
		"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block", "make_sym",
		"refer", "truncate", "ioctl_dev", "resolve_unix"}
	handled := handledFS(abi)
	var out []string
	for i, n := range names {
		if handled&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if abi >= ScopeABI {
		out = append(out, "scope:abstract_unix_socket", "scope:signal")
	}
	return out
}

// Namespaces names the namespaces sys creates.
func Namespaces(sys *syscall.SysProcAttr) []string {
	var out []string
	for _, ns := range []struct {
		flag uintptr
		name string
	}{{syscall.CLONE_NEWUSER, "user"}, {syscall.CLONE_NEWNS, "mount"}, {syscall.CLONE_NEWNET, "network"},
		{syscall.CLONE_NEWPID, "pid"}, {syscall.CLONE_NEWIPC, "ipc"}} {
		if sys != nil && sys.Cloneflags&ns.flag != 0 {
			out = append(out, ns.name)
		}
	}
	return out
}
