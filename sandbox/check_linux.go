package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/quiverkit/quiver/sandbox/cgroup"
	"github.com/quiverkit/quiver/sandbox/launch"
)

// unsupportedEnv, when set, makes [Check] report the sandbox unavailable
// with its value as the reason: a test hook that simulates a kernel without
// Landlock. It can only make Quiver refuse more, never less.
const unsupportedEnv = "QUIVER_SANDBOX_UNSUPPORTED"

// abiCapEnv, when set to a number, caps the Landlock ABI Quiver uses: a
// test hook that simulates an older kernel. It can lower the ABI, never
// raise it, and a lowered ABI gets what a real kernel of that ABI gets:
// the other layers cover what the missing rights did, or the start is
// refused (see launch.Spec.UsedABI and the package doc).
const abiCapEnv = "QUIVER_SANDBOX_LANDLOCK_ABI"

// abiCap is the cap abiCapEnv sets, 0 for none.
func abiCap() int {
	n, err := strconv.Atoi(os.Getenv(abiCapEnv))
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// usedABI is the Landlock ABI Quiver uses on this machine.
func usedABI() int { return (&launch.Spec{LandlockABI: abiCap()}).UsedABI() }

var probe struct {
	once sync.Once
	err  error
}

// Check reports whether this machine can enforce every profile: nil, or an
// [*UnavailableError] naming what is missing. The kernel is probed once,
// by starting the running executable as the launcher in the namespaces a
// profile uses, with a protected path to mount, confined with every layer
// a call gets. The probe starts no other program: a launcher beside the
// executable is judged, and probed, against each real call's profile
// instead ([Profile.Check], which starting a process uses).
func Check() error {
	if why := os.Getenv(unsupportedEnv); why != "" {
		return &UnavailableError{Missing: why}
	}
	probe.once.Do(func() { probe.err = checkKernel() })
	return probe.err
}

// checkABI refuses a Landlock ABI too old for any profile.
func checkABI() error {
	if abi := usedABI(); abi < launch.MinABI {
		have := "none"
		if abi > 0 {
			have = fmt.Sprintf("ABI %d", abi)
		}
		return &UnavailableError{Missing: fmt.Sprintf("Landlock ABI %d or later (this kernel has %s)", launch.MinABI, have)}
	}
	return nil
}

func checkKernel() error {
	if err := checkABI(); err != nil {
		return err
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
	return runProbe(launch.Spec{Workspace: dir, Protected: []string{protected}, LandlockABI: abiCap()}, launch.Probe)
}

// runProbe starts a probe of s, prepared by prepare, and judges its exit.
func runProbe(s launch.Spec, prepare func(launch.Spec, *exec.Cmd) error) error {
	var stderr bytes.Buffer
	cmd := &exec.Cmd{Stderr: &stderr}
	if err := prepare(s, cmd); err != nil {
		return unavailable(err)
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

// unavailable maps a launch error to an [*UnavailableError] when it says
// what the kernel lacks.
func unavailable(err error) error {
	var me *launch.MissingError
	if errors.As(err, &me) {
		return &UnavailableError{Missing: me.Missing, Err: err}
	}
	return &UnavailableError{Missing: "a launcher", Err: err}
}

// launcherProbes holds, per launcher, the result of probing it once with
// the profile of the first call that chose it.
var launcherProbes sync.Map // launcher path -> func() error

// Check reports whether this machine can enforce p: nil, or an
// [*UnavailableError] naming what is missing. It probes, once per
// launcher, exactly what a call of p starts: the launcher chosen for p
// (see launch.TrustedSibling), with p's profile. Unconfined profiles need
// nothing.
func (p *Profile) Check() error {
	if !p.Confined() {
		return nil
	}
	if why := os.Getenv(unsupportedEnv); why != "" {
		return &UnavailableError{Missing: why}
	}
	if err := checkABI(); err != nil {
		return err
	}
	s := p.spec()
	s.Protected = p.protectedNow()
	s.Exec = p.execOnly
	s.Masked = p.maskedNow()
	l := launch.LauncherOf(s)
	probed, _ := launcherProbes.LoadOrStore(l, sync.OnceValue(func() error { return runProbe(s, probeWith) }))
	return probed.(func() error)()
}

func (p *Profile) wrap(cmd *exec.Cmd) error {
	s := p.spec()
	s.Hold = p.hold
	s.Protected = p.protectedNow()
	s.Exec = p.execOnly
	s.Masked = p.maskedNow()
	s.Path, s.Args = cmd.Path, cmd.Args
	if p.Proxied() {
		bridge, err := p.bridge()
		if err != nil {
			return err
		}
		s.Bridge = bridge
	}
	if err := launch.Command(s, cmd); err != nil {
		if s.Bridge != nil {
			s.Bridge.Close()
		}
		var me *launch.MissingError
		if errors.As(err, &me) {
			return unavailable(err)
		}
		return err
	}
	return nil
}

// probeWith prepares a probe of s through the launcher a call of s starts.
func probeWith(s launch.Spec, cmd *exec.Cmd) error {
	s.Path, s.Args = "", []string{"probe"}
	return launch.Command(s, cmd)
}

// spec is the launch spec of p, without a program.
func (p *Profile) spec() launch.Spec {
	return launch.Spec{ReadOnly: p.Scope == ReadOnly, Workspace: p.Workspace, Writable: p.Writable,
		Protected: p.Protected, Network: p.Network, TempDir: p.TempDir,
		Readable: p.Readable, Limited: p.Readable != nil,
		UnixSockets: p.UnixSockets, Limits: p.Limits.launchIn(p.cgroup), LandlockABI: abiCap(), Terminal: p.terminal}
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

// protectedNow returns the paths to pin read-only for a process starting
// now: the protected list, its globs expanded, with the repository's git
// metadata as gitPins has it. An approved git's pins replace the whole-.git
// entry of the list.
func (p *Profile) protectedNow() []string {
	paths := expandGlobs(p.Protected)
	if p.Scope != WorkspaceWrite {
		return paths // nothing is writable to pin in
	}
	if p.gitWrite {
		if repo, ok := findGitRepo(p.Workspace); ok {
			whole := append([]string{repo.dotGit}, repo.dirs...)
			paths = slices.DeleteFunc(paths, func(s string) bool { return slices.Contains(whole, s) })
		}
	}
	return append(paths, p.gitPins(p.gitWrite)...)
}

// Inspect reports what the sandbox enforces on this machine for cfg's
// settings: each layer, and each write scope's profile.
func Inspect(cfg Config) Report {
	r := Report{Available: true, LandlockABI: usedABI(), KernelABI: launch.ABI()}
	if err := Check(); err != nil {
		r.Available, r.Missing = false, err.Error()
	}
	s := launch.Spec{Workspace: os.TempDir(), LandlockABI: abiCap(), UnixSockets: cfg.UnixSockets}
	r.LandlockRights = launch.RightsUsed(r.LandlockABI)
	cmd := &exec.Cmd{}
	launch.Command(s, cmd) // for the namespaces only; nothing is started
	r.Namespaces = launch.Namespaces(cmd.SysProcAttr)
	r.Process = processLayers
	for _, rule := range s.SyscallRules() {
		r.Seccomp = append(r.Seccomp, SyscallRule(rule))
	}
	r.Profiles = profileReports(r, cfg)
	return r
}

// processLayers are what the launcher does for every confined start (see
// the package doc, One call, one confined world).
var processLayers = []string{
	"launcher environment: the spec alone (no LD_PRELOAD, LD_AUDIT or GODEBUG of a call reaches it)",
	"new session (setsid): the program has no controlling terminal, but the call's own pseudo-terminal with exec_command's tty: true",
	"inherited descriptors: every one from 3 up closed, but those passed on purpose",
	"lifetime: the launcher is the PID namespace's init and dies with its host (parent-death signal); every process ends with the call",
	"the launcher is non-dumpable: no ptrace of it, no /proc/1/mem",
}

// profileReports says what each write scope enforces, given r's layers.
func profileReports(r Report, cfg Config) []ProfileReport {
	if !r.Available || cfg.Disabled {
		why := "nothing: the sandbox is unavailable here, and every confined start is refused"
		if cfg.Disabled {
			why = "nothing: [sandbox] disabled = true"
		}
		return []ProfileReport{{ReadOnly, []string{why}}, {WorkspaceWrite, []string{why}},
			{Unrestricted, []string{"nothing (the explicit opt-out)"}}}
	}
	network := "no network: a network namespace with its own loopback only"
	switch {
	case cfg.Network.All():
		network = "the network is on ([sandbox] network = true)"
	case cfg.Network.Proxied():
		network = "only " + strings.Join(cfg.Network.Hosts, ", ") + ", over HTTP and CONNECT through Quiver's proxy (HTTP_PROXY: a port of the namespace's own loopback, bridged out by the launcher); no other TCP, no UDP"
	}
	sockets := "no Unix sockets (seccomp refuses AF_UNIX; stream socketpairs stay)"
	switch {
	case slices.Contains(cfg.UnixSockets, launch.AnyUnixSocket):
		sockets = "every Unix socket may be connected to ([sandbox] unix_sockets = [\"*\"])"
	case len(cfg.UnixSockets) > 0 && r.LandlockABI >= launch.ResolveUnixABI:
		sockets = "Unix sockets only at " + strings.Join(cfg.UnixSockets, ", ") + " (Landlock's resolve-unix right)"
	case len(cfg.UnixSockets) > 0:
		sockets = fmt.Sprintf("refused to start: [sandbox] unix_sockets names paths, which needs Landlock ABI %d", launch.ResolveUnixABI)
	}
	reads := "reads everything the user can, but the paths a read deny masks ([sandbox] read = \"all\")"
	if cfg.Read.Workspace {
		reads = "reads only the workspace, writable_roots, the call's TMPDIR and the system's program directories (Landlock; [sandbox] read = \"workspace\"), and not the paths a read deny masks"
	}
	common := []string{reads, network, sockets,
		"no terminal injection (a session of its own, with no controlling terminal but the call's own pseudo-terminal; seccomp: TIOCSTI, TIOCLINUX)",
		"signals stay inside (" + signalFence(r) + ")",
		"no host System V IPC or POSIX message queue (an IPC namespace)",
		"no process outlives the call (the PID namespace's init is the launcher)",
		"no descriptor of the host's but those passed on purpose (every other one from 3 up closed)",
		"no ptrace, process_vm_*, io_uring, bpf, perf_event_open, userfaultfd, keyrings, kexec; native system call ABI only",
		"no capabilities (all dropped), no_new_privs",
		limitsLine(cfg.Limits)}
	return []ProfileReport{
		{ReadOnly, append([]string{"writes nothing but /dev/null, /dev/zero and /dev/full (Landlock, read-only mounts)"}, common...)},
		{WorkspaceWrite, append([]string{"writes the workspace, the call's TMPDIR and writable_roots only (Landlock); the protected paths and their links stay read-only (mounts)"}, common...)},
		{Unrestricted, []string{"nothing (the explicit opt-out)"}},
	}
}

// limitsLine says what holds [Limits] here, and why: a cgroup of each
// call's own, tried once (made and removed), or resource limits alone,
// which the kernel does not apply to root's tasks for processes.
func limitsLine(l Limits) string {
	host := cgroup.Detect()
	if host.Version() != cgroup.None {
		call, err := host.New(l.cgroup())
		if err == nil {
			_, err = call.Close()
		}
		if err == nil {
			return fmt.Sprintf("limits (%s, a cgroup per call; resource limits too, and for CPU time alone): %s; %s", host.Version(), l, host.Why())
		}
		return fmt.Sprintf("limits (resource limits alone: setrlimit, soft = hard): %s; %s, but a call's cgroup cannot be made: %v", l.describe(false), host.Why(), err)
	}
	line := "limits (resource limits alone: setrlimit, soft = hard): " + l.String()
	if os.Geteuid() == 0 {
		line += "; the processes limit does not hold: Quiver runs as root, whose tasks the kernel never counts against it"
	}
	return line + "; no cgroup: " + host.Why()
}

// signalFence names what keeps signals inside on this machine.
func signalFence(r Report) string {
	var by []string
	if r.LandlockABI >= launch.ScopeABI {
		by = append(by, "Landlock's signal scope")
	}
	if slices.Contains(r.Namespaces, "pid") {
		by = append(by, "the PID namespace")
	}
	if len(by) == 0 {
		return "nothing: confined starts are refused"
	}
	return strings.Join(by, " and ")
}
