package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quiverkit/quiver/sandbox/cgroup"
	"github.com/quiverkit/quiver/sandbox/launch"
	"github.com/quiverkit/quiver/sandbox/netproxy"
	"github.com/quiverkit/quiver/tool"
)

// WriteScope bounds what a call may change: what Quiver's own file tools may
// write (the policy holds them to it) and what the processes it starts may
// write (the [Profile] of the scope confines them). It is the workspace's
// write_scope setting.
type WriteScope string

// The write scopes.
const (
	ReadOnly       WriteScope = "read-only"       // writes nothing but /dev/null and the like
	WorkspaceWrite WriteScope = "workspace-write" // writes the workspace, the call's TMPDIR and the extra roots
	Unrestricted   WriteScope = "unrestricted"    // no confinement at all
)

// ParseWriteScope parses a write scope's name, as configuration and the
// command line write it.
func ParseWriteScope(s string) (WriteScope, error) {
	switch w := WriteScope(s); w {
	case ReadOnly, WorkspaceWrite, Unrestricted:
		return w, nil
	}
	return "", fmt.Errorf("write scope %q: want read-only, workspace-write or unrestricted", s)
}

// UnmarshalText lets configuration decoders reject a bad scope where it is
// written.
func (w *WriteScope) UnmarshalText(b []byte) error {
	v, err := ParseWriteScope(string(b))
	if err != nil {
		return err
	}
	*w = v
	return nil
}

// Config is the operator's [sandbox] section of quiver.toml.
type Config struct {
	// Disabled turns confinement off whatever the write scope, for hosts
	// that isolate Quiver themselves (a container). The write scope still
	// binds Quiver's own file tools.
	Disabled bool `toml:"disabled"`
	// Network is the list of hosts calls may send data to (see [Network]):
	// the web tools' unasked hosts, and the hosts confined processes reach
	// through the proxy (every host: the network itself).
	Network Network `toml:"network"`
	// WritableRoots are further directories confined processes may write
	// under workspace-write. Never a cache that unconfined programs share
	// (the Go build cache, npm's): a confined process could plant an entry
	// the user's next unconfined build runs; a confined command gets a cache
	// of its own in its TMPDIR or the workspace instead. Relative paths are
	// relative to the workspace; ~ is the home directory.
	WritableRoots []string `toml:"writable_roots"`
	// UnixSockets are the named Unix sockets confined processes may
	// connect to (an ssh-agent's): without any, the seccomp filter refuses
	// every AF_UNIX socket. Paths hold only where Landlock has ABI 9, and
	// elsewhere a start is refused; "*" allows every Unix socket, abstract
	// ones included, on every kernel. See the package doc.
	UnixSockets []string `toml:"unix_sockets"`
	// Read narrows what confined processes may read ([ReadScope]): with
	// read = "workspace", only the workspace, the writable roots, the
	// call's TMPDIR and the system's program directories; "all" (the
	// default) leaves reads open but for the masked paths.
	Read ReadScope `toml:"read"`
	// Limits bound what one confined call may use ([Limits]).
	Limits Limits `toml:"limits"`
	// ProxyResolver, when set, is how the proxy of a list of hosts looks
	// names up ([netproxy.WithResolver]): a test hook that gives test
	// names a loopback address. Not a setting of quiver.toml.
	ProxyResolver netproxy.Resolver `toml:"-"`
}

// ReadScope is [Config] Read, written "all" (or left out) or "workspace".
type ReadScope struct {
	// Workspace limits a confined process's reads to the trees it may
	// write and the system's program directories ([Profile].Readable).
	Workspace bool
}

// UnmarshalText reads "all" (or "") and "workspace", so that a
// configuration decoder reports another value where it is written.
func (r *ReadScope) UnmarshalText(b []byte) error {
	switch string(b) {
	case "", "all":
		*r = ReadScope{}
	case "workspace":
		*r = ReadScope{Workspace: true}
	default:
		return fmt.Errorf("sandbox.read %q: want \"all\" or \"workspace\"", b)
	}
	return nil
}

// String is the scope as configuration writes it.
func (r ReadScope) String() string {
	if r.Workspace {
		return "workspace"
	}
	return "all"
}

// Profile is what one process may do. The zero Profile is not usable: build
// one with [New].
type Profile struct {
	Scope WriteScope
	// Off is set when the operator turned confinement off ([Config]
	// Disabled): the profile then stays unconfined whatever is asked of it.
	Off       bool
	Workspace string   // the workspace root, absolute
	Writable  []string // further writable roots, absolute
	// Protected are absolute paths, inside writable roots, kept read-only.
	Protected []string
	Network   bool
	// UnixSockets are the Unix sockets a process may connect to, absolute
	// (or "*", every one): [Config] UnixSockets.
	UnixSockets []string
	// TempDir is the call's private temporary directory: writable, and the
	// process's TMPDIR. Empty for none.
	TempDir string
	// Masked are paths (absolute; globs expanded when a process starts)
	// that no process may read: the paths a read deny rule names
	// (deny = ["read_file(.env)"]). Each gets something empty mounted over
	// it, so cat, grep -r, an interpreter and a symbolic link all read
	// nothing there.
	Masked []string
	// Readable, when not nil, limits reads to these trees plus the system's
	// program directories (see systemReadable) and the call's TempDir. nil
	// leaves reads open. [Config] Read sets it to the workspace and the
	// writable roots.
	Readable []string
	// Limits bound the resources of the process and its descendants
	// ([Config] Limits).
	Limits Limits

	proxy    *netproxy.Proxy // the proxy of [Config] Network's list; nil for none
	contacts *netproxy.Tally // counts every request to the proxy: see RecordingContacts

	noProcess bool     // see NoProcess
	gitWrite  bool     // an approved git: see ForProgram
	execOnly  []string // a read-only git: see ForProgram
	terminal  bool     // standard input is Quiver's pseudo-terminal: see Process.Terminal
	// cgroup is the call's cgroup, which holds the processes limit and,
	// when it can, the memory limit (see Limits); nil: resource limits
	// alone. hold is then, under cgroup v1, the launcher's end of its start
	// pipe (launch.Spec.Hold). Both are set per start by the group.
	cgroup *cgroup.Call
	hold   *os.File
	// readOnlyAsked is set by With(ReadOnly), also on a profile the
	// operator turned off: git's read-only protections apply all the same.
	readOnlyAsked bool
}

// readOnly reports whether p was asked to be read-only.
func (p *Profile) readOnly() bool { return p != nil && (p.Scope == ReadOnly || p.readOnlyAsked) }

// ErrNoProcess is the refusal to start a process under a [Profile.NoProcess]
// profile.
var ErrNoProcess = errors.New("sandbox: the tool declares that it starts no process (tool.InProcess), and started one")

// NoProcess returns a copy of p under which every process is refused with
// ErrNoProcess, whatever p's scope, an unconfined one included. It is the
// profile of a call whose tool declared that it starts none
// ([tool.Tool.InProcess]): `quiver call` leaves Ctrl-C to kill such a call
// outright, and a process it started would run on, so a wrong declaration
// fails the call rather than leaving one behind.
func (p *Profile) NoProcess() *Profile {
	q := *p
	q.noProcess = true
	return &q
}

// New returns the profile of scope for a workspace ("" is workspace-write,
// the default scope): cfg's network and extra roots, and protected, the
// protected paths (workspace-relative or absolute). With cfg.Disabled the
// profile is [Unrestricted].
func New(scope WriteScope, workspace string, cfg Config, protected []string) (*Profile, error) {
	if scope == "" {
		scope = WorkspaceWrite
	}
	if cfg.Disabled {
		scope = Unrestricted
	}
	if _, err := ParseWriteScope(string(scope)); err != nil {
		return nil, err
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	if err := cfg.Limits.check(); err != nil {
		return nil, err
	}
	p := &Profile{Scope: scope, Off: cfg.Disabled, Workspace: ws, Network: cfg.Network.All(), Limits: cfg.Limits, proxy: newProxy(cfg)}
	for _, r := range cfg.WritableRoots {
		abs, err := absUnder(ws, r)
		if err != nil {
			return nil, fmt.Errorf("sandbox: writable root %q: %w", r, err)
		}
		p.Writable = append(p.Writable, abs)
	}
	for _, r := range cfg.UnixSockets {
		if r == launch.AnyUnixSocket {
			p.UnixSockets = append(p.UnixSockets, r)
			continue
		}
		abs, err := absUnder(ws, r)
		if err != nil {
			return nil, fmt.Errorf("sandbox: unix socket %q: %w", r, err)
		}
		p.UnixSockets = append(p.UnixSockets, abs)
	}
	for _, r := range protected {
		abs, err := absUnder(ws, r)
		if err != nil {
			return nil, fmt.Errorf("sandbox: protected path %q: %w", r, err)
		}
		p.Protected = append(p.Protected, abs)
	}
	if cfg.Read.Workspace {
		p.Readable = append([]string{ws}, p.Writable...)
	}
	return p, nil
}

// MaskReads returns a copy of p under which no process reads paths:
// workspace-relative globs (the path deny rules of read_file) or absolute
// paths. Each is masked as [Profile].Masked says.
func (p *Profile) MaskReads(paths []string) (*Profile, error) {
	q := *p
	q.Masked = slices.Clone(p.Masked)
	for _, m := range paths {
		abs, err := absUnder(p.Workspace, m)
		if err != nil {
			return nil, fmt.Errorf("sandbox: masked path %q: %w", m, err)
		}
		q.Masked = append(q.Masked, abs)
	}
	return &q, nil
}

// absUnder makes p absolute: ~ is the home directory, a relative path is
// relative to base.
func absUnder(base, p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), nil
}

// With returns a copy of p in scope w: a command the read-only classifier let
// through runs read-only whatever the scope. A profile the operator turned
// off stays unconfined.
func (p *Profile) With(w WriteScope) *Profile {
	q := *p
	if !q.Off {
		q.Scope = w
	}
	q.readOnlyAsked = w == ReadOnly
	return &q
}

// WithNetwork returns a copy of p that may reach the network.
func (p *Profile) WithNetwork() *Profile {
	q := *p
	q.Network = true
	return &q
}

// ReadingOnly returns a read-only copy of p that may read only trees (and
// the system's program directories): for programs whose reads must stay
// inside the workspace even when a directory is swapped for a symlink while
// they run (the CLI provider's rg and fd).
func (p *Profile) ReadingOnly(trees ...string) *Profile {
	q := p.With(ReadOnly)
	if q.Confined() {
		q.Readable = trees
	}
	return q
}

// Confined reports whether p confines anything.
func (p *Profile) Confined() bool { return p != nil && p.Scope != Unrestricted }

// Key is the dependency key of the profile for a call's processes. The
// toolkit provides it per call (a command the read-only classifier let
// through runs read-only); it has no Create, so a tool that starts processes
// without one falls back to [Default], never to no confinement.
var Key = tool.Key[*Profile]{ID: "quiver.sandbox.profile"}

// Default returns the profile of a tool that was given none: workspace-write
// for the workspace, network off, no protected paths beyond the standard
// ones.
func Default(workspace string) (*Profile, error) {
	return New(WorkspaceWrite, workspace, Config{}, StandardProtected)
}

// For returns the call's profile, or [Default] for workspace when the host
// provided none.
func For(ctx context.Context, tc tool.Context, workspace string) (*Profile, error) {
	if p, err := tool.Resolve(ctx, tc, Key); err == nil && p != nil {
		return p, nil
	}
	return Default(workspace)
}

// StandardProtected are the workspace paths protected whatever the
// configuration says, by the policy for the file tools and by the sandbox
// for processes: they govern Quiver or run code later (the quiver.toml, or
// quorum.toml, that `quiver --root DIR` would load, script tools, and all of .git, whether a
// directory or a file, with the git directory it points to: git reads
// programs and locations from far more of it than config and hooks). An
// approved git may still write what add and commit write (see
// [Profile.ForProgram]).
var StandardProtected = []string{"quiver.toml", "quorum.toml", ".quiver", ".git"}

// UnavailableError is the refusal to run where the kernel cannot enforce a
// profile. It names what is missing and how to opt out.
type UnavailableError struct {
	Missing string // what the kernel lacks, e.g. "Landlock ABI 3 (this kernel has 1)"
	Err     error
}

func (e *UnavailableError) Error() string {
	return "the kernel sandbox is unavailable: " + e.Missing +
		`; nothing was run. To run unconfined anyway, set [sandbox] disabled = true in quiver.toml ` +
		`(for a host that isolates Quiver itself), or write_scope = "unrestricted" (--write-scope unrestricted) ` +
		`for approved commands; commands run without approval as read-only ones stay confined`
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// ToolError maps the error of starting a process to the tool error a model
// sees: SANDBOX_UNAVAILABLE for an [*UnavailableError], else
// EXECUTION_FAILED.
func ToolError(err error) error {
	var ue *UnavailableError
	if errors.As(err, &ue) {
		return tool.Errorf(tool.CodeSandboxUnavailable, "%w", err)
	}
	return tool.Errorf(tool.CodeExecutionFailed, "%w", err)
}

// Wrap is the sandbox layer of the start path ([Process], which every
// process Quiver starts goes through; start one with [Command] or
// [Group.Command], not with Wrap). It rewrites cmd so that it starts under
// p: its program becomes the
// launcher, which is started with no environment but the profile (cmd's
// environment travels inside it to the program alone), and its SysProcAttr
// gains the namespaces (fields already set, such as Setpgid, are kept).
// The program inherits standard input, output and error and cmd.ExtraFiles,
// which must therefore be set before Wrap; every other descriptor is
// closed. Signals sent to cmd.Process reach the program through the
// launcher, and cmd's exit status is the program's (128 plus the signal
// for a program a signal killed); when cmd's process ends, so does every
// process the program started.
// A relative cmd.Path is taken relative to cmd.Dir. Under every profile,
// unconfined ones and nil included, cmd's environment (nil: [HostEnv](nil))
// gets [Profile.Env]. Where the kernel cannot
// enforce p, Wrap returns an [*UnavailableError] and cmd must not be run.
func (p *Profile) Wrap(cmd *exec.Cmd) error {
	if p != nil && p.noProcess { // nil is a valid, unconfined profile
		return ErrNoProcess
	}
	if cmd.Env == nil {
		cmd.Env = HostEnv(nil)
	}
	cmd.Env = p.Env(cmd.Env)
	if !p.Confined() {
		return nil
	}
	if err := p.Check(); err != nil {
		return err
	}
	if cmd.Err != nil {
		return nil // the program was not found: Start reports it
	}
	if !filepath.IsAbs(cmd.Path) {
		dir := cmd.Dir
		if dir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("sandbox: %w", err)
			}
			dir = wd
		}
		cmd.Path = filepath.Join(dir, cmd.Path)
	}
	return p.wrap(cmd)
}

// Env returns the environment a process started under p gets: env with
// Quiver's git protections ([GitEnv]) and, when p has one, TMPDIR pointed
// at its temporary directory. It applies to unconfined profiles too: every
// git Quiver starts is protected.
func (p *Profile) Env(env []string) []string {
	var extra [][2]string
	switch {
	case p.readOnly():
		extra = gitReadOnlyConfig
	case p != nil && p.gitWrite:
		extra = gitWriteConfig
	}
	env = gitEnv(env, p.readOnly(), extra)
	if p == nil || p.TempDir == "" {
		return env
	}
	out := slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	return append(out, "TMPDIR="+p.TempDir)
}

// Scratch reports whether path lies in one of the trees outside the
// workspace that p lets a process write — its TMPDIR and the operator's
// extra roots — and if so which, with path relative to it. Quiver's own
// shell opens its redirections there as a confined program could.
func (p *Profile) Scratch(path string) (dir, rel string, ok bool) {
	if p == nil || p.Scope != WorkspaceWrite {
		return "", "", false
	}
	for _, root := range append([]string{p.TempDir}, p.Writable...) {
		if root == "" {
			continue
		}
		if r, err := filepath.Rel(root, path); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			return root, r, true
		}
	}
	return "", "", false
}

// WithTempDir returns a copy of p with a new private temporary directory,
// and the function that removes it. An unconfined profile gets none.
//
// The directory, call-*, is made in this process's own directory
// ([OwnDir]), inside Quiver's private directory, which every confined
// process finds empty: the launcher mounts this one back at its own path
// for the call's programs alone, so that no call can read, list or write
// another's TMPDIR, by any name. One a killed Quiver left is removed with
// its own directory by the next Quiver to start a call.
func (p *Profile) WithTempDir() (*Profile, func(), error) {
	if !p.Confined() {
		return p, func() {}, nil
	}
	own, err := OwnDir()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: temporary directory: %w", err)
	}
	dir, err := os.MkdirTemp(own, "call-*")
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: temporary directory: %w", err)
	}
	q := *p
	q.TempDir = dir
	if q.Readable != nil {
		q.Readable = append(slices.Clone(q.Readable), dir) // its own TMPDIR reads back
	}
	return &q, func() { os.RemoveAll(dir) }, nil
}
