package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ScriptsDir is where a project keeps its script tools, relative to its
// directory. Its files are code: `quiver trust` records their digests with
// the configuration's.
const ScriptsDir = ".quiver/tools"

// TrustFileName is the file, in the user's configuration directory, that
// holds the trusted projects.
const TrustFileName = "trust.json"

// UserDir is Quiver's directory in the user's configuration directory:
// $XDG_CONFIG_HOME/quiver when XDG_CONFIG_HOME is set to an absolute path
// (on every system, so that one variable moves it), else
// os.UserConfigDir()/quiver (~/.config/quiver on Linux, ~/Library/Application
// Support/quiver on macOS, %AppData%\quiver on Windows). It holds the user's
// config.toml and trust.json. Only the operator chooses it: it comes from
// the environment Quiver is started in, never from a file.
func UserDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "quiver"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("the user's configuration directory: %w", err)
	}
	return filepath.Join(dir, "quiver"), nil
}

// Project is a directory's own configuration as read from disk, once:
// its configuration file's bytes (the ones parsed, never read again) and
// the digest of every project file, configuration and scripts.
type Project struct {
	// Dir is the directory, as a real path: links resolved, so that a
	// trust record names one directory however it is reached.
	Dir string
	// File is the configuration file loaded (one of FileNames, relative
	// to Dir); "" when there is none.
	File string
	data []byte
	// Files maps each project file (FileNames present, the entries of
	// ScriptsDir, the Claude Code settings file the configuration names
	// for its hooks, and the workspace files those hooks' commands name:
	// see hookfiles.go) to its sha256, hex. A file that cannot be read through
	// the directory (a link leading out of it) maps to "" and can never
	// match a trust record.
	Files map[string]string
	// claudeFile and claudeData are the Claude Code settings file the
	// configuration names, relative to Dir, and its bytes as hashed.
	claudeFile string
	claudeData []byte
}

// Empty reports whether the directory has no project file at all.
func (p *Project) Empty() bool { return len(p.Files) == 0 }

// ReadProject reads dir's project files. They are read through an os.Root
// of dir: a link inside the project is followed, one leading out of it is
// not read (its digest is "", which no trust record holds), so the bytes
// hashed are always the project's own.
func ReadProject(dir string) (*Project, error) {
	real, err := realDir(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("project %s: %w", real, err)
	}
	defer root.Close()
	p := &Project{Dir: real, Files: map[string]string{}}
	for _, name := range FileNames {
		data, err := root.ReadFile(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %w", filepath.Join(real, name), err)
		}
		sum := sha256.Sum256(data)
		p.Files[name] = hex.EncodeToString(sum[:])
		if p.File == "" {
			p.File, p.data = name, data
		}
	}
	if err := p.hashScripts(root); err != nil {
		return nil, err
	}
	if err := p.hashClaudeSettings(root); err != nil {
		return nil, err
	}
	p.hashHookFiles(root)
	return p, nil
}

// hashScripts records the digest of each entry of ScriptsDir the script
// provider would consider (it skips names starting with '.').
func (p *Project) hashScripts(root *os.Root) error {
	entries, err := fs.ReadDir(root.FS(), ScriptsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(p.Dir, ScriptsDir), err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name := path.Join(ScriptsDir, e.Name())
		sum, err := digestIn(root, name)
		if err != nil && !errors.Is(err, errNotFile) {
			sum = "" // unreadable through the root: never trusted
		}
		if !errors.Is(err, errNotFile) {
			p.Files[name] = sum
		}
	}
	return nil
}

var errNotFile = errors.New("not a regular file")

// digestIn is the sha256 of the file name inside root; directories are
// errNotFile.
func digestIn(root *os.Root, name string) (string, error) {
	f, err := root.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", errNotFile
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("project %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("project %s: %w", dir, err)
	}
	return real, nil
}

// TrustRecord is one trusted project: its directory and the digests of its
// files when the operator trusted it.
type TrustRecord struct {
	Dir       string            `json:"dir"`
	Files     map[string]string `json:"files"`
	TrustedAt time.Time         `json:"trusted_at"`
}

// trustFile is trust.json.
type trustFile struct {
	Version  int           `json:"version"`
	Projects []TrustRecord `json:"projects"`
}

// Trust is the user's record of trusted projects, in userDir/trust.json.
type Trust struct {
	path     string
	projects []TrustRecord
}

// ReadTrust reads userDir's trust record; a missing file is no project
// trusted.
func ReadTrust(userDir string) (*Trust, error) {
	t := &Trust{path: filepath.Join(userDir, TrustFileName)}
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	var f trustFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", t.path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, want 1", t.path, f.Version)
	}
	t.projects = f.Projects
	return t, nil
}

// Path is the trust file's path.
func (t *Trust) Path() string { return t.path }

// Records returns the trusted projects, sorted by directory.
func (t *Trust) Records() []TrustRecord {
	out := slices.Clone(t.projects)
	slices.SortFunc(out, func(a, b TrustRecord) int { return strings.Compare(a.Dir, b.Dir) })
	return out
}

// Record returns dir's record, if any. dir must be a real path
// (Project.Dir): a record is for exactly one directory, never for its
// subdirectories or a directory it was moved to.
func (t *Trust) Record(dir string) (TrustRecord, bool) {
	i := slices.IndexFunc(t.projects, func(r TrustRecord) bool { return r.Dir == dir })
	if i < 0 {
		return TrustRecord{}, false
	}
	return t.projects[i], true
}

// State is a project's trust: whether its files are the ones trusted.
func (t *Trust) State(p *Project) TrustState {
	r, ok := t.Record(p.Dir)
	switch {
	case !ok:
		return NotTrusted
	case !maps.Equal(r.Files, p.Files):
		return Changed
	}
	return Trusted
}

// ChangedFiles are p's files whose digest is not the one its record holds,
// added and removed ones included, sorted; none when it has no record.
func (t *Trust) ChangedFiles(p *Project) []string {
	r, ok := t.Record(p.Dir)
	if !ok {
		return nil
	}
	var out []string
	for name, sum := range p.Files {
		if was, ok := r.Files[name]; !ok || was != sum {
			out = append(out, name)
		}
	}
	for name := range r.Files {
		if _, ok := p.Files[name]; !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TrustState is a project layer's trust.
type TrustState string

// Trust states.
const (
	Trusted    TrustState = "trusted"
	NotTrusted TrustState = "not trusted"
	Changed    TrustState = "changed since trusted"
)

// Add records p as trusted with its files as they are now, replacing an
// earlier record of its directory, and writes the file. A project file
// that could not be read through the directory is refused: it cannot be
// pinned.
func (t *Trust) Add(p *Project, now time.Time) error {
	for name, sum := range p.Files {
		if sum == "" {
			return fmt.Errorf("%s: cannot be read inside %s (a link leading out of it?); it cannot be trusted", name, p.Dir)
		}
	}
	t.Remove(p.Dir)
	t.projects = append(t.projects, TrustRecord{Dir: p.Dir, Files: maps.Clone(p.Files), TrustedAt: now.UTC()})
	return t.write()
}

// Remove drops dir's record; it reports whether there was one. Call
// Save to write the change.
func (t *Trust) Remove(dir string) bool {
	n := len(t.projects)
	t.projects = slices.DeleteFunc(t.projects, func(r TrustRecord) bool { return r.Dir == dir })
	return len(t.projects) != n
}

// Save writes the record.
func (t *Trust) Save() error { return t.write() }

// write replaces the trust file atomically, readable by its owner alone:
// a temporary file in the same directory, synced, then renamed over it.
func (t *Trust) write() error {
	data, err := json.MarshalIndent(trustFile{Version: 1, Projects: t.Records()}, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	dir := filepath.Dir(t.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	// CreateTemp makes the file 0600.
	f, err := os.CreateTemp(dir, ".trust-*.json")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename, there is nothing left to remove
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), t.path)
	}
	if err == nil {
		return nil
	}
	return fmt.Errorf("trust: writing %s: %w", t.path, err)
}
