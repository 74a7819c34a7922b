package launch

import (
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// MinABI is the oldest Landlock ABI that can enforce a write profile: ABI 1
// and 2 cannot refuse truncate(2), which is a write.
const MinABI = 3

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

// restrict applies the Landlock ruleset of p to the whole process. The config
// asks for everything go-landlock knows and is downgraded to what the
// kernel has (BestEffort); Check has made sure the kernel has at least
// MinABI, so writes are always confined.
func (p *Spec) restrict() error {
	cfg := landlock.V11.BestEffort()
	// The network is the network namespace's job (see netns.go): Landlock's
	// port rules would also forbid the namespace's own loopback, which a
	// program's tests may use.
	cfg.HandledAccessNet = 0
	var rules []landlock.Rule
	if !p.Limited {
		rules = append(rules, landlock.RODirs("/"))
	} else {
		dirs, files := splitDirs(p.Readable)
		rules = append(rules, landlock.RODirs(append(dirs, systemDirs...)...).IgnoreIfMissing(),
			landlock.ROFiles(append(files, systemFiles...)...).IgnoreIfMissing())
	}
	rules = append(rules, landlock.RWFiles(writableDevices...).IgnoreIfMissing())
	if !p.ReadOnly {
		rules = append(rules, landlock.RWDirs(p.writableRoots()...).WithRefer().IgnoreIfMissing())
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
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

// ABI returns the kernel's Landlock ABI version, 0 without one.
func ABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// splitDirs splits paths into directories and the rest: Landlock refuses a
// directory right on a file.
func splitDirs(paths []string) (dirs, files []string) {
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	return dirs, files
}
