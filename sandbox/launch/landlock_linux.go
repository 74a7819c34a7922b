package launch

import (
	"fmt"
	"os"
	"syscall"
)

// MinABI is the oldest Landlock ABI that can enforce a write profile: ABI 1
// and 2 cannot refuse truncate(2), which is a write.
const MinABI = 3

// Landlock's file system access rights (include/uapi/linux/landlock.h).
const (
	fsExecute     = 1 << 0
	fsWriteFile   = 1 << 1
	fsReadFile    = 1 << 2
	fsReadDir     = 1 << 3
	fsRefer       = 1 << 13 // ABI 2
	fsTruncate    = 1 << 14 // ABI 3
	fsIoctlDev    = 1 << 15 // ABI 5
	fsResolveUnix = 1 << 16 // ABI 9

	// fileRights are the rights that apply to a file (not a directory).
	fileRights = fsExecute | fsWriteFile | fsReadFile | fsTruncate | fsIoctlDev | fsResolveUnix
	readRights = fsExecute | fsReadFile | fsReadDir

	scopeAbstractUnixSocket = 1 << 0 // ABI 6
	scopeSignal             = 1 << 1 // ABI 6
)

// writableDevices are the device files every profile may write: writing
// them changes no file.
var writableDevices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// systemDirs and systemFiles are what a program needs to start at all
// (itself, its shared libraries, the loader's cache), readable under a
// profile whose reads are limited.
var (
	systemDirs  = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.conf.d"}
	systemFiles = []string{"/etc/ld.so.cache", "/etc/ld.so.conf"}
)

// ABI returns the kernel's Landlock ABI version, 0 without one.
func ABI() int {
	v, err := landlockCreateRuleset(nil, 0, landlockCreateRulesetVersion)
	if err != nil {
		return 0
	}
	return v
}

// Landlock ABIs that add what a profile relies on.
const (
	// ScopeABI adds the scopes: signals and abstract Unix sockets stay
	// inside the domain. Below it, the PID namespace keeps signals in, and
	// seccomp (or, network off, the network namespace) abstract sockets.
	ScopeABI = 6
	// ResolveUnixABI adds LANDLOCK_ACCESS_FS_RESOLVE_UNIX, which limits
	// connect(2) to named sockets: what holds [sandbox] unix_sockets to
	// its paths.
	ResolveUnixABI = 9
)

// UsedABI is the Landlock ABI a launcher of s uses: the kernel's, or less
// when s caps it.
func (s *Spec) UsedABI() int {
	abi := ABI()
	if s.LandlockABI > 0 && s.LandlockABI < abi {
		abi = s.LandlockABI
	}
	return abi
}

// unixPaths are the socket paths of s.UnixSockets, and whether it allows
// any socket at all.
func (s *Spec) unixPaths() (paths []string, any bool) {
	for _, p := range s.UnixSockets {
		if p == AnyUnixSocket {
			return nil, true
		}
		paths = append(paths, p)
	}
	return paths, false
}

// handledFS is every file system right the kernel's ABI knows: all of them
// are refused unless a rule grants them.
func handledFS(abi int) uint64 {
	switch {
	case abi >= 9:
		return 1<<17 - 1
	case abi >= 5:
		return 1<<16 - 1
	case abi >= 3:
		return 1<<15 - 1
	case abi == 2:
		return 1<<14 - 1
	}
	return 1<<13 - 1
}

// restrict applies the Landlock ruleset of p to the calling thread, which
// the launcher execs from (the other threads end with the exec). The
// network is the network namespace's job: Landlock's port rules would also
// forbid the namespace's own loopback, which a program's tests may use.
func (p *Spec) restrict() error {
	abi := p.UsedABI()
	if abi < MinABI {
		return fmt.Errorf("landlock: ABI %d, need %d", abi, MinABI)
	}
	sockets, anySocket := p.unixPaths()
	if len(sockets) > 0 && abi < ResolveUnixABI {
		return fmt.Errorf("landlock: [sandbox] unix_sockets names paths, which needs ABI %d to hold (this kernel: %d)", ResolveUnixABI, abi)
	}
	handled := handledFS(abi)
	attr := rulesetAttr{handledAccessFS: handled}
	size := uintptr(8)
	if abi >= ScopeABI {
		attr.scoped = scopeAbstractUnixSocket | scopeSignal
		size = 24
	}
	rs, err := landlockCreateRuleset(&attr, size, 0)
	if err != nil {
		return fmt.Errorf("landlock: create ruleset: %w", err)
	}
	defer syscall.Close(rs)
	add := func(access uint64, paths ...string) error {
		if access&handled == 0 {
			return nil // a right this ABI does not know: not refused either
		}
		for _, path := range paths {
			if err := addPath(rs, access&handled, path); err != nil {
				return err
			}
		}
		return nil
	}
	read := []string{"/"}
	if p.Limited {
		read = append(append(append([]string(nil), p.Readable...), systemDirs...), systemFiles...)
	}
	if err := p.addReadRules(add, read); err != nil {
		return err
	}
	if p.Limits.MemoryBytes > 0 { // the second stage runs the launcher again
		self, err := os.Readlink(selfLauncher)
		if err != nil {
			return fmt.Errorf("landlock: the launcher's own path: %w", err)
		}
		if err := add(fsExecute|fsReadFile, self); err != nil {
			return err
		}
	}
	devices := writableDevices
	if p.Terminal {
		// The program's controlling terminal, the call's own: prompts
		// (a password, a confirmation) open it to talk to the user.
		devices = append(devices[:len(devices):len(devices)], "/dev/tty")
	}
	if err := add(fsReadFile|fsWriteFile|fsTruncate|fsIoctlDev, devices...); err != nil {
		return err
	}
	if !p.ReadOnly {
		if err := add(handled, p.writableRoots()...); err != nil {
			return err
		}
	}
	if anySocket {
		sockets = []string{"/"}
	}
	if err := add(fsResolveUnix, sockets...); err != nil {
		return err
	}
	if err := errnoErr(prctl(prSetNoNewPrivs, 1)); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := landlockRestrictSelf(rs); err != nil {
		return fmt.Errorf("landlock: restrict: %w", err)
	}
	return nil
}

// addPath grants access beneath path; a path that does not exist is
// skipped, and a file gets only the rights that apply to files.
func addPath(rs int, access uint64, path string) error {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil // missing (an optional system directory, an extra root not made yet)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock: %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= fileRights
	}
	if err := landlockAddPathRule(rs, access, fd); err != nil {
		return fmt.Errorf("landlock: rule for %s: %w", path, err)
	}
	return nil
}

// writableRoots are the trees p may write under workspace-write.
func (p *Spec) writableRoots() []string {
	roots := append([]string{p.Workspace}, p.Writable...)
	if p.TempDir != "" {
		roots = append(roots, p.TempDir)
	}
	return roots
}

// addReadRules grants reading read, and executing too unless p.Exec limits
// execution to its own list. Landlock checks the execute right on the
// program and on the ELF interpreter the kernel loads for it, so the list
// must hold the loader of each program on it.
func (p *Spec) addReadRules(add func(uint64, ...string) error, read []string) error {
	if p.Exec == nil {
		return add(readRights, read...)
	}
	if err := add(readRights&^fsExecute, read...); err != nil {
		return err
	}
	return add(readRights, p.Exec...)
}
