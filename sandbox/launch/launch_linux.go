// Package launch is the sandbox's launcher: the code that runs in the child
// process, between the fork and the exec of the confined program, and the
// one function that prepares an *exec.Cmd to start it.
//
// It makes its few system calls itself (sys_linux.go): Landlock needs no
// all-threads machinery here, since the launcher restricts the one thread
// it execs from and the exec ends the others. Beyond the standard library
// it imports only go-seccomp-bpf (and that library's golang.org/x/net/bpf
// and x/sys/unix) for the seccomp filter, see seccomp_linux.go. The
// launcher runs from an init function, after the package initialisation of
// the binary's packages that Go orders before it (in the quiver binary
// about half of them); that, one more exec, and creating the namespaces
// are what a confined process costs over a bare one (see the benchmarks in
// internal/shell and sandbox).
//
// Which program is started as the launcher is decided in
// launcher_linux.go: the running executable, or a quiver-sandbox beside it
// that nothing confined could have written.
package launch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// specEnv carries the Spec from Command to the launcher.
const specEnv = "QUIVER_SANDBOX_SPEC"

// Layers a test can leave out through Spec.Without.
const (
	layerIPC          = "ipc"           // the IPC namespace
	layerInheritedFDs = "inherited-fds" // closing the descriptors inherited from 3 up
)

// Spec is what the launcher applies and runs: the profile, flattened, and
// the program with its environment. It is the wire format of
// sandbox.Profile.
type Spec struct {
	ReadOnly  bool     `json:"read_only,omitempty"` // else workspace-write
	Workspace string   `json:"workspace"`
	Writable  []string `json:"writable,omitempty"`
	Protected []string `json:"protected,omitempty"`
	Network   bool     `json:"network,omitempty"`
	TempDir   string   `json:"tmpdir,omitempty"`
	Readable  []string `json:"readable,omitempty"` // nil: reads open
	Limited   bool     `json:"limited,omitempty"`  // reads limited to Readable
	// Masked are paths no program may read: each has something empty
	// mounted over it (mask_linux.go).
	Masked []string `json:"masked,omitempty"`
	// UnixSockets are the named Unix sockets the program may connect to
	// ([sandbox] unix_sockets); "*" is every one. Non-empty, it lets the
	// seccomp filter allow AF_UNIX and needs Landlock ABI 9.
	UnixSockets []string `json:"unix_sockets,omitempty"`
	// Limits are the resource limits of the program and everything it
	// starts ([sandbox] limits).
	Limits Limits `json:"limits,omitzero"`
	// LimitOnly marks the launcher's second stage (see execLimited): set
	// Limits and exec the program, which inherits the first stage's
	// confinement.
	LimitOnly bool `json:"limit_only,omitempty"`
	// Terminal asks for the program's standard input, a pseudo-terminal
	// the host opened for the call, to become its controlling terminal
	// (see startProgram).
	Terminal bool `json:"terminal,omitempty"`
	// LandlockABI, when not 0, caps the Landlock ABI the launcher uses: a
	// test hook that simulates an older kernel (see sandbox's
	// QUIVER_SANDBOX_LANDLOCK_ABI).
	LandlockABI int `json:"landlock_abi,omitempty"`
	// Without names layers to leave out (layerIPC, layerInheritedFDs): a
	// test hook, which proves that a layer's test fails without it. It can
	// only make the launcher confine less, so nothing sets it but Go code
	// that builds a Spec itself: this package's tests. No environment
	// variable reaches it (the launcher gets none but the spec, which
	// Command writes), and package sandbox never sets it.
	Without []string `json:"without,omitempty"`
	Path    string   `json:"path"` // empty: a probe, which exits 0 once confined
	Args    []string `json:"args"`
	// Exec, when not nil, is all the process may execute (files, and trees
	// beneath directories); nil leaves execution open. See addReadRules.
	Exec []string `json:"exec,omitempty"`
	// Env is the program's environment. The launcher itself runs with none
	// but the spec (see Command): nothing here reaches it.
	Env []string `json:"env,omitempty"`
	// ExtraFiles is how many descriptors from 3 up the program inherits on
	// purpose (exec.Cmd.ExtraFiles); every other one is closed. Set by
	// Command.
	ExtraFiles int `json:"extra_files,omitempty"`
	// Proxy is set when the launcher bridges a port of the namespace's
	// loopback to Quiver's network proxy (bridge_linux.go), through the
	// descriptor after the extra files. Set by Command from Bridge.
	Proxy bool `json:"proxy,omitempty"`
	// Bridge is Quiver's socket pair end that the launcher passes the
	// proxy's connections over; nil for none. Command appends it to the
	// command's extra files, after the program's.
	Bridge *os.File `json:"-"`
	// Held says the launcher starts held: before it starts the program it
	// waits for one byte on the descriptor after the bridge (or after the
	// extra files), which the host writes once it has put the launcher in
	// the call's cgroup (cgroup v1, which cannot start a process into
	// one). The end of the pipe without that byte means the host could not,
	// and the launcher exits without starting anything. Set by Command
	// from Hold.
	Held bool `json:"held,omitempty"`
	// Hold is the read end of the start pipe of a held launcher; nil for
	// none. Command appends it to the command's extra files, after the
	// bridge.
	Hold *os.File `json:"-"`
	// Parent is the pid of the process that starts the launcher, as
	// /proc names it; the launcher dies with it. Set by Command.
	Parent int `json:"parent,omitempty"`
}

func init() {
	raw, ok := os.LookupEnv(specEnv)
	if !ok {
		return
	}
	// This process is a launcher: it never returns to the host program.
	os.Exit(launch(raw))
}

// Command rewrites cmd to start the launcher, which applies s and runs
// s.Path with s.Args in cmd's directory and environment, cmd.ExtraFiles
// passed on. Fields of cmd.SysProcAttr already set (Setpgid...) are kept.
//
// The launcher is started with an environment of one variable, the spec:
// cmd's environment travels inside it (Spec.Env) and reaches only the
// program, never the launcher, which runs before it is confined; a dynamic
// loader reading LD_PRELOAD, or a Go runtime reading GODEBUG, finds nothing
// to act on.
func Command(s Spec, cmd *exec.Cmd) error {
	if s.Path != "" && !filepath.IsAbs(s.Path) {
		return fmt.Errorf("sandbox: program path %q is not absolute", s.Path)
	}
	if len(s.Args) == 0 {
		s.Args = []string{s.Path}
	}
	s.Env = cmd.Env
	if s.Env == nil {
		s.Env = os.Environ()
	}
	s.Env = withoutSpec(s.Env)
	s.ExtraFiles = len(cmd.ExtraFiles)
	if s.Proxy = s.Bridge != nil; s.Proxy {
		cmd.ExtraFiles = append(cmd.ExtraFiles, s.Bridge)
	}
	if s.Held = s.Hold != nil; s.Held {
		cmd.ExtraFiles = append(cmd.ExtraFiles, s.Hold)
	}
	s.Parent = procSelf()
	raw, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if len(raw)+len(specEnv)+1 >= maxEnvString {
		return fmt.Errorf("sandbox: the program's environment and profile take %d bytes, more than the %d one launch can carry", len(raw), maxEnvString-len(specEnv)-2)
	}
	cmd.Env = append([]string{specEnv + "=" + string(raw)}, RaceEnv...)
	cmd.Path = launcher(s, runningExecutable())
	cmd.Args = []string{"quiver-sandbox"}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	s.namespaces(cmd.SysProcAttr)
	return s.enforceable(cmd.SysProcAttr)
}

// maxEnvString is the kernel's limit on one environment string
// (MAX_ARG_STRLEN, 32 pages of 4 KiB), which the spec must fit in.
const maxEnvString = 32 * 4096

// namespaces adds the launcher's namespaces to sys: a user namespace (no
// privilege needed, the caller's uid and gid mapped to themselves) owning
// new mount, PID and IPC namespaces, and a network namespace unless s
// may reach the network. The launcher is the PID namespace's init: when it
// ends, the kernel kills every process left in it.
func (s Spec) namespaces(sys *syscall.SysProcAttr) {
	sys.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
	if slices.Contains(s.Without, layerIPC) {
		sys.Cloneflags &^= syscall.CLONE_NEWIPC
	}
	if !s.Network {
		sys.Cloneflags |= syscall.CLONE_NEWNET
	}
	// A process in a new PID namespace cannot join a process group outside
	// it (setpgid looks the group up in the new namespace, and fails): a
	// launcher asked to join one leads a group of its own instead. A caller
	// that kills the group it asked for must also kill the launcher itself;
	// the launcher's death ends every process of its call.
	if sys.Setpgid {
		sys.Pgid = 0
	}
	uid, gid := os.Getuid(), os.Getgid()
	sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	sys.GidMappingsEnableSetgroups = false
	// The exec of the launcher clears the capabilities the new user
	// namespace gave unless its uid there is 0: a user other than root
	// keeps the three it needs (mounts, loopback, dropping the bounding
	// set) as ambient ones, which the launcher drops with every other
	// before the program starts.
	if uid != 0 {
		sys.AmbientCaps = []uintptr{capSysAdmin, capNetAdmin, capSetpcap}
	}
}

// The capabilities a launcher started by a user other than root keeps
// across its exec (linux/capability.h).
const (
	capSetpcap  = 8
	capNetAdmin = 12
	capSysAdmin = 21
)

// MayWrite reports whether a process confined by s may write path, or
// create it: whether path lies in a tree s makes writable (none under
// read-only; else the workspace, the writable roots and the temporary
// directory), read both as written and with its symbolic links resolved as
// far as they exist. As written counts too because a link inside a
// writable tree can itself be swapped. Protected paths count as writable:
// one that does not exist yet can be created.
func (s Spec) MayWrite(path string) bool {
	if s.ReadOnly {
		return false
	}
	candidates := []string{filepath.Clean(path)}
	if r, err := evalExisting(path); err == nil {
		candidates = append(candidates, r)
	}
	for _, root := range s.writableRoots() {
		if root == "" {
			continue
		}
		roots := []string{root}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			roots = append(roots, r)
		}
		for _, r := range roots {
			for _, c := range candidates {
				if within(r, c) {
					return true
				}
			}
		}
	}
	return false
}

// evalExisting resolves the symbolic links of path's longest existing
// prefix and joins the rest back on.
func evalExisting(path string) (string, error) {
	path = filepath.Clean(path)
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" || filepath.Clean(dir) == path {
		return "", errors.New("no existing prefix")
	}
	r, err := evalExisting(filepath.Clean(dir))
	if err != nil {
		return "", err
	}
	return filepath.Join(r, base), nil
}

// Exit statuses of a launcher that could not exec its program, as a shell
// reports them.
const (
	exitCannotExec = 126
	exitNotFound   = 127
	exitSetup      = 125 // the sandbox itself could not be set up
)

// launch applies the profile in raw to this process and runs the program
// as its child; it returns the exit status the launcher exits with.
//
// Everything runs on the one thread init started on: Landlock, no_new_privs
// and the capabilities are properties of a thread, and the program is
// forked from this one (see startProgram).
func launch(raw string) int {
	runtime.LockOSThread()
	s, err := parseSpec(raw)
	if err != nil {
		fmt.Fprintf(os.Stderr, "quiver-sandbox: bad launch spec: %v\n", err)
		return exitSetup
	}
	if s.LimitOnly {
		return s.execLimited()
	}
	if err := dieWithParent(s.Parent); err != nil {
		fmt.Fprintf(os.Stderr, "quiver-sandbox: %v\n", err)
		return exitSetup
	}
	if !slices.Contains(s.Without, layerInheritedFDs) { // a test hook, see Spec.Without
		if err := closeInherited(3 + s.ExtraFiles + s.bridges()); err != nil {
			fmt.Fprintf(os.Stderr, "quiver-sandbox: %v\n", err)
			return exitSetup
		}
	}
	if err := s.confine(); err != nil {
		fmt.Fprintf(os.Stderr, "quiver-sandbox: %v\n", err)
		return exitSetup
	}
	if s.Path == "" {
		return 0 // a probe (see Check): confined, and nothing to run
	}
	if s.Proxy {
		if err := s.startBridge(3 + s.ExtraFiles); err != nil {
			fmt.Fprintf(os.Stderr, "quiver-sandbox: %v\n", err)
			return exitSetup
		}
	}
	if s.Held {
		if err := awaitRelease(3 + s.ExtraFiles + b2i(s.Proxy)); err != nil {
			fmt.Fprintf(os.Stderr, "quiver-sandbox: %v\n", err)
			return exitSetup
		}
	}
	return s.runAsInit()
}

// bridges is how many descriptors after the extra files the launcher
// keeps for itself: the proxy's bridge and the start pipe, when there are.
func (s *Spec) bridges() int {
	return b2i(s.Proxy) + b2i(s.Held)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// awaitRelease waits for the host's byte on the start pipe fd (see
// Spec.Held), and closes it: nothing the program starts inherits it.
func awaitRelease(fd int) error {
	var b [1]byte
	n, err := syscall.Read(fd, b[:])
	for errors.Is(err, syscall.EINTR) {
		n, err = syscall.Read(fd, b[:])
	}
	syscall.Close(fd)
	if n != 1 {
		return fmt.Errorf("the host did not place the launcher in the call's cgroup (start pipe: %d bytes, %v)", n, err)
	}
	return nil
}

// parseSpec decodes the launch spec.
func parseSpec(raw string) (*Spec, error) {
	var s Spec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return nil, err
	}
	if s.Workspace == "" || len(s.Args) == 0 {
		return nil, errors.New("no workspace or no argv")
	}
	return &s, nil
}

func withoutSpec(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, specEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// confine applies p to the calling thread, and so to everything it starts:
// loopback, mounts, Landlock, capabilities, and no access to the launcher
// itself.
// The order matters: mounting needs the capabilities the user namespace
// gave, and Landlock's no_new_privs must be set before the program starts.
func (p *Spec) confine() error {
	if !p.Network {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	if err := p.protect(); err != nil {
		return err
	}
	if err := p.restrict(); err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := undumpable(); err != nil {
		return err
	}
	return p.filterSyscalls()
}

// protect makes the file system read-only outside the writable roots, and
// the protected paths read-only inside them. Landlock already refuses
// writes there, but not chmod, chown, utimes or xattrs, which a read-only
// mount does refuse. So:
//
//  1. each writable root is bind-mounted over itself (it keeps its own,
//     writable, mount);
//  2. each protected path is bind-mounted read-only over itself, and each
//     directory between it and its writable root is bind-mounted over
//     itself, which makes it a mount point that cannot be renamed or
//     removed (EBUSY) — otherwise `mv .git x && mkdir .git` would swap the
//     protected files out. Protected paths that do not exist are skipped
//     (see the package doc);
//  3. every other mount is remounted read-only.
func (p *Spec) protect() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := mountProc(); err != nil {
		return err
	}
	var roots []string
	if !p.ReadOnly {
		roots = p.writableRoots()
		for _, root := range roots {
			if err := bindSelf(root, false, ""); err != nil && !errors.Is(err, syscall.ENOENT) {
				return err
			}
		}
		if err := p.protectPaths(); err != nil {
			return err
		}
	}
	if err := p.mask(); err != nil {
		return err
	}
	if err := readOnlyExcept(roots); err != nil {
		return err
	}
	// The working directory still points into the mounts as they were: enter
	// it again by name, through the new ones.
	if wd, err := os.Getwd(); err == nil {
		if err := os.Chdir(wd); err != nil {
			return fmt.Errorf("re-entering %s: %w", wd, err)
		}
	}
	return nil
}

// protectPaths bind-mounts the protected paths read-only (step 2 of
// protect).
func (p *Spec) protectPaths() error {
	// Parents first: a child inside a read-only parent is then left alone
	// rather than pinned writable.
	paths := slices.Clone(p.Protected)
	slices.SortFunc(paths, func(a, b string) int { return len(a) - len(b) })
	pinned := map[string]bool{}
	for _, path := range paths {
		if err := p.protectPath(path, pinned, 0); err != nil {
			return err
		}
	}
	return nil
}

// readOnlyExcept remounts read-only every mount that is not inside one of
// roots (step 3 of protect). A mount hidden under another cannot be reached
// by its path, and needs no remount.
func readOnlyExcept(roots []string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("reading the mounts: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		point, opts := unescapeMount(fields[4]), fields[5]
		if slices.ContainsFunc(roots, func(r string) bool { return within(r, point) }) || hasOpt(opts, "ro") {
			continue
		}
		err := remount(point, true, opts)
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EINVAL) {
			continue // hidden, or unreachable by this path
		}
		if err != nil {
			return fmt.Errorf("making %s read-only: %w", point, err)
		}
	}
	return sc.Err()
}

// writableRootOf returns the writable root path lies in, or "".
func (p *Spec) writableRootOf(path string) string {
	for _, root := range p.writableRoots() {
		if within(root, path) {
			return root
		}
	}
	return ""
}

// between returns the directories strictly between root and path, outermost
// first.
func between(root, path string) []string {
	var dirs []string
	for dir := filepath.Dir(path); dir != root && within(root, dir); dir = filepath.Dir(dir) {
		dirs = append([]string{dir}, dirs...)
	}
	return dirs
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// bindSelf bind-mounts path over itself, read-only if ro.
func bindSelf(path string, ro bool, opts string) error {
	if err := syscall.Mount(path, path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("protecting %s: bind mount: %w", path, err)
	}
	if !ro {
		return nil
	}
	if err := remount(path, true, ""); err != nil {
		return fmt.Errorf("protecting %s: read-only remount: %w", path, err)
	}
	return nil
}

// remount remounts the mount at path read-only. The flags the kernel locked
// on a mount that came from the parent namespace (nosuid, nodev, noexec,
// the atime ones) must be repeated, or a user namespace is refused the
// remount: they are taken from opts (mountinfo's options of the mount) or,
// when opts is empty, from statfs.
func remount(path string, ro bool, opts string) error {
	flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT)
	if ro {
		flags |= syscall.MS_RDONLY
	}
	if opts == "" {
		var st syscall.Statfs_t
		if err := syscall.Statfs(path, &st); err != nil {
			return err
		}
		flags |= uintptr(st.Flags) & statfsFlagsMountFlags
	}
	for _, f := range []struct {
		name string
		ms   uintptr
	}{{"nosuid", syscall.MS_NOSUID}, {"nodev", syscall.MS_NODEV}, {"noexec", syscall.MS_NOEXEC},
		{"noatime", syscall.MS_NOATIME}, {"nodiratime", syscall.MS_NODIRATIME}, {"relatime", syscall.MS_RELATIME}} {
		if hasOpt(opts, f.name) {
			flags |= f.ms
		}
	}
	return syscall.Mount("", path, "", flags, "")
}

func hasOpt(opts, name string) bool {
	return slices.Contains(strings.Split(opts, ","), name)
}

// unescapeMount decodes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// dropCapabilities empties every capability set of this thread, its
// bounding set included, so that the program — even one running as uid 0
// inside the namespace — cannot undo the mounts.
func dropCapabilities() error {
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if e := prctl(prCapbsetDrop, uintptr(c)); e != 0 && e != syscall.EINVAL {
			return fmt.Errorf("dropping capability %d: %w", c, e)
		}
	}
	if e := prctl(prCapAmbient, prCapAmbientClearAll); e != 0 && e != syscall.EINVAL {
		return fmt.Errorf("clearing ambient capabilities: %w", e)
	}
	if err := capsetNone(); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	return nil
}

// loopbackUp brings up the loopback interface of the new network
// namespace, so that a program may talk to itself on 127.0.0.1 (a test
// server) while the host's loopback, and everything else, stays out of
// reach.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer syscall.Close(fd)
	var ifr ifreqFlags
	copy(ifr.name[:], "lo")
	if err := ioctlIfreq(fd, syscall.SIOCGIFFLAGS, &ifr); err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	ifr.flags |= syscall.IFF_UP
	if err := ioctlIfreq(fd, syscall.SIOCSIFFLAGS, &ifr); err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	return nil
}
