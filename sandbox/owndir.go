package sandbox

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// OwnDir returns this process's own directory inside Quiver's private
// directory ([PrivateDir]): own-TAG, made on first use, beside the lock
// file own-TAG.lock that the process holds (flock, exclusive) for as long
// as it lives. What only this process uses goes there — each call's
// TMPDIR ([Profile.WithTempDir]), exec_command's overflow files, job logs
// — so that no confined process can read it, and so that what a Quiver
// killed outright (SIGKILL, a crash) leaves is found: the kernel releases
// a dead process's lock, and the first OwnDir of every Quiver process
// removes each own-TAG whose lock it can take, with its lock file.
//
// Where there are no file locks (Windows), nothing is swept: a process
// cannot tell whether another lives.
func OwnDir() (string, error) {
	private, err := PrivateDir()
	if err != nil {
		return "", err
	}
	own.Lock()
	defer own.Unlock()
	if dir, ok := own.dirs[private]; ok {
		if err := os.MkdirAll(dir, 0o700); err != nil { // removed underneath: made again
			return "", fmt.Errorf("sandbox: Quiver's own directory: %w", err)
		}
		return dir, nil
	}
	sweepDead(private)
	sweepLegacy(private, time.Now())
	tag, err := holdOwnLock(private)
	if err != nil {
		return "", fmt.Errorf("sandbox: Quiver's own directory: %w", err)
	}
	dir := filepath.Join(private, ownPrefix+tag)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: Quiver's own directory: %w", err)
	}
	if own.dirs == nil {
		own.dirs = map[string]string{}
	}
	own.dirs[private] = dir
	return dir, nil
}

// own holds, per private directory, this process's own directory; the
// lock files stay open (and locked) until the process ends.
var own struct {
	sync.Mutex
	dirs  map[string]string
	locks []*os.File
}

const (
	ownPrefix  = "own-"
	lockSuffix = ".lock"
)

// holdOwnLock creates and locks a new own-TAG.lock in private and returns
// TAG. A sweeper that took the lock between the file's creation and this
// process's flock removed it: a lock held on a file no longer at its name
// guards nothing, so it starts over with a new tag.
func holdOwnLock(private string) (string, error) {
	for range 100 {
		tag := strings.ToLower(rand.Text()[:16])
		name := filepath.Join(private, ownPrefix+tag+lockSuffix)
		f, err := os.OpenFile(name, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", err
		}
		if err := lockFile(f, false); err != nil {
			own.locks = append(own.locks, f) // no locks here: never swept either
			return tag, nil
		}
		held, err1 := f.Stat()
		named, err2 := os.Lstat(name)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			own.locks = append(own.locks, f)
			return tag, nil
		}
		f.Close()
	}
	return "", errors.New("could not hold a lock file")
}

// sweepDead removes, in private, the own directories of processes that
// are gone: each own-TAG whose lock file nobody holds (or that has none:
// its owner died while a sweeper removed it), and that lock file.
// Failures are ignored: a leftover is swept by the next process.
func sweepDead(private string) {
	entries, err := os.ReadDir(private)
	if err != nil {
		return
	}
	present := map[string]bool{}
	for _, e := range entries {
		present[e.Name()] = true
	}
	for _, e := range entries {
		name := e.Name()
		tag, ok := strings.CutPrefix(name, ownPrefix)
		switch {
		case !ok:
		case strings.HasSuffix(tag, lockSuffix):
			removeIfDead(filepath.Join(private, name), filepath.Join(private, strings.TrimSuffix(name, lockSuffix)))
		case e.IsDir() && !present[name+lockSuffix]:
			os.RemoveAll(filepath.Join(private, name))
		}
	}
}

// removeIfDead removes dir and then lock when lock's holder is gone.
func removeIfDead(lock, dir string) {
	f, err := os.OpenFile(lock, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || lockFile(f, true) != nil {
		return // a live process holds it, or it is no lock of ours
	}
	os.RemoveAll(dir)
	os.Remove(lock)
}

// legacyAfter is when what a Quiver of before own directories left counts
// as abandoned: exec-*.log and jobs-* in the private directory, and
// quiver-call-* TMPDIRs in the temporary directory beside it. Those
// Quivers held no lock, so only age tells: no call lasts a day, and a
// running job's log grows.
const legacyAfter = 24 * time.Hour

// sweepLegacy removes what Quivers of before own directories left (see
// legacyAfter), untouched since before now-legacyAfter and the user's own.
func sweepLegacy(private string, now time.Time) {
	var stale []string
	for _, pattern := range []string{
		filepath.Join(private, "exec-*.log"),
		filepath.Join(private, "jobs-*"),
		filepath.Join(filepath.Dir(private), "quiver-call-*"),
	} {
		matches, _ := filepath.Glob(pattern)
		stale = append(stale, matches...)
	}
	for _, path := range stale {
		if untouchedSince(path, now.Add(-legacyAfter)) {
			os.RemoveAll(path)
		}
	}
}

// untouchedSince reports whether path, a file or a directory of the
// user's (not a link), and a directory's entries, were last modified
// before t.
func untouchedSince(path string, t time.Time) bool {
	fi, err := os.Lstat(path)
	if err != nil || !ownedByUser(fi) || fi.Mode()&os.ModeSymlink != 0 || !fi.ModTime().Before(t) {
		return false
	}
	if !fi.IsDir() {
		return true
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if info, err := e.Info(); err != nil || !info.ModTime().Before(t) {
			return false
		}
	}
	return true
}
