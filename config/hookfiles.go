package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/quiverkit/quiver/hooks"
)

// A hook's command names scripts that live in the workspace
// (.claude/hooks/guard.sh, "$CLAUDE_PROJECT_DIR"/.claude/hooks/check.py):
// they are code the configuration brings as much as the configuration
// itself is, so they are found (hooks.CommandPaths), hashed into the trust
// record, and protected as the configuration is. What is found:
//
//   - each word of the command that names a regular file of the workspace,
//     a link inside it counting as both the link and what it points to;
//   - the other regular files of each such file's directory, unless that
//     directory is the workspace root: a script imports or sources what
//     lies beside it (Python puts the script's directory first on its
//     path), and a file added there could shadow a module;
//   - what a shell script sources (source, .), in turn.
//
// The directories of those files, and of words known only in part
// ($CLAUDE_PROJECT_DIR/.claude/hooks/$NAME.sh), are protected whole, so
// that nothing can be added to them or renamed over their files; they are
// not hashed beyond the files above.

// maxSourceDepth bounds how far sourced scripts are followed.
const maxSourceDepth = 4

// maxScriptRead bounds what of a script is read to find what it sources.
const maxScriptRead = 1 << 20

// hookFiles is what the hook commands of one workspace name.
type hookFiles struct {
	root *os.Root
	dir  string // the workspace, a real path
	// files maps each file found, relative with slashes, to its sha256
	// ("" when it cannot be read inside the workspace: a link leading out).
	files map[string]string
	dirs  map[string]bool // directories to protect whole, relative
}

// findHookFiles finds the workspace files the commands name; dir is root's
// real path.
func findHookFiles(root *os.Root, dir string, commands []string) *hookFiles {
	hf := &hookFiles{root: root, dir: dir, files: map[string]string{}, dirs: map[string]bool{}}
	for _, c := range commands {
		hf.paths(hooks.CommandPaths(c), 0)
	}
	return hf
}

func (hf *hookFiles) paths(p hooks.Paths, depth int) {
	siblings := depth == 0 // what a script sources is pinned alone
	for _, d := range p.Dirs {
		if rel, ok := hf.local(d); ok {
			if fi, err := hf.root.Stat(rel); err == nil && fi.IsDir() {
				hf.dirs[rel] = true
			}
		}
	}
	for _, f := range p.Files {
		if rel, ok := hf.local(f); ok {
			hf.file(rel, depth, siblings)
		}
	}
}

// local is p relative to the workspace, when it lies inside it.
func (hf *hookFiles) local(p string) (string, bool) {
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		real := RealPath(native)
		if !Within(real, hf.dir) || real == hf.dir {
			return "", false
		}
		rel, err := filepath.Rel(hf.dir, real)
		return filepath.ToSlash(rel), err == nil
	}
	return p, filepath.IsLocal(native)
}

// file records rel (and, with siblings, the files beside it) when it is a
// file of the workspace.
func (hf *hookFiles) file(rel string, depth int, siblings bool) {
	if _, seen := hf.files[rel]; seen {
		return
	}
	fi, err := hf.root.Lstat(filepath.FromSlash(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && fi.IsDir():
		return // a word that names no file, or a directory (protecting it could stop a formatter)
	case err != nil:
		hf.files[rel] = "" // inside a link leading out: never trusted
		return
	case fi.Mode()&fs.ModeSymlink != 0:
		hf.link(rel, depth, siblings)
		return
	case !fi.Mode().IsRegular():
		return
	}
	sum, err := digestIn(hf.root, filepath.FromSlash(rel))
	if err != nil {
		sum = ""
	}
	hf.files[rel] = sum
	hf.around(rel, depth, siblings)
}

// link records a link and what it points to, which must be inside the
// workspace; a dangling link names nothing yet.
func (hf *hookFiles) link(rel string, depth int, siblings bool) {
	target, err := filepath.EvalSymlinks(filepath.Join(hf.dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	trel, ok := "", false
	if err == nil {
		trel, ok = hf.local(filepath.ToSlash(target))
	}
	if !ok {
		hf.files[rel] = "" // leads out of the workspace: never trusted
		return
	}
	hf.files[rel] = "" // until its target is hashed; a cycle stays ""
	hf.file(trel, depth, siblings)
	hf.files[rel] = hf.files[trel]
	hf.around(rel, depth, siblings)
}

// around protects rel's directory, hashes the files beside it and follows
// what it sources.
func (hf *hookFiles) around(rel string, depth int, siblings bool) {
	parent := path.Dir(rel)
	if parent != "." {
		hf.dirs[parent] = true
		if siblings {
			if entries, err := fs.ReadDir(hf.root.FS(), parent); err == nil {
				for _, e := range entries {
					hf.file(path.Join(parent, e.Name()), depth, false)
				}
			}
		}
	}
	if depth >= maxSourceDepth {
		return
	}
	if script, ok := hf.shellScript(rel); ok {
		hf.paths(hooks.SourcedPaths(script), depth+1)
	}
}

// shellScript returns rel's text when it is a shell script: named .sh or
// .bash, or starting with a #! line naming a shell.
func (hf *hookFiles) shellScript(rel string) (string, bool) {
	f, err := hf.root.Open(filepath.FromSlash(rel))
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxScriptRead))
	if err != nil {
		return "", false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	ext := path.Ext(rel)
	if ext == ".sh" || ext == ".bash" || strings.HasPrefix(first, "#!") && shebangShell(first) {
		return string(b), true
	}
	return "", false
}

// shebangShell reports whether a #! line runs a shell (sh, bash, dash, ksh,
// zsh), directly or through env.
func shebangShell(line string) bool {
	for _, f := range strings.Fields(strings.TrimPrefix(line, "#!")) {
		switch path.Base(f) {
		case "sh", "bash", "dash", "ksh", "zsh":
			return true
		}
	}
	return false
}

// protected is every path found, absolute: the files and the directories.
func (hf *hookFiles) protected() []string {
	var out []string
	for rel := range hf.files {
		out = append(out, filepath.Join(hf.dir, filepath.FromSlash(rel)))
	}
	for rel := range hf.dirs {
		out = append(out, filepath.Join(hf.dir, filepath.FromSlash(rel)))
	}
	slices.Sort(out)
	return out
}

// projectHookCommands are the command lines of the hooks the project
// brings: its configuration's and its Claude Code settings file's (the
// events Quiver runs).
func (p *Project) projectHookCommands() []string {
	var peek struct {
		Hooks map[string]any `toml:"hooks"`
	}
	var out []string
	if toml.Unmarshal(p.data, &peek) == nil { // Parse reports what is wrong
		for _, e := range hooks.Events {
			list, _ := peek.Hooks[string(e)].([]any)
			for _, h := range list {
				if m, ok := h.(map[string]any); ok {
					if c, ok := m["command"].(string); ok {
						out = append(out, c)
					}
				}
			}
		}
	}
	if p.claudeData != nil {
		if cfg, _, err := hooks.ParseClaudeSettings(p.claudeFile, p.claudeData); err == nil {
			out = append(out, commandsOf(cfg)...)
		}
	}
	return out
}

func commandsOf(cfg hooks.Config) []string {
	var out []string
	for _, e := range hooks.Events {
		for _, h := range cfg.For(e) {
			out = append(out, h.Command)
		}
	}
	return out
}

// hashHookFiles adds to the project's files those its hooks name, so that
// `quiver trust` pins the scripts with the configuration that runs them:
// a changed guard untrusts the project, and its hooks do not run until the
// operator trusts it again.
func (p *Project) hashHookFiles(root *os.Root) {
	hf := findHookFiles(root, p.Dir, p.projectHookCommands())
	for name, sum := range hf.files {
		if _, ok := p.Files[name]; !ok {
			p.Files[name] = sum
		}
	}
}

// HookProtected returns the workspace paths the hooks in force run or read
// as code, absolute: the files their commands name (with what lies beside
// them and what they source), the directories of those files, and the
// directory of a Claude Code settings file inside the workspace (.claude/,
// where its hooks live), unless that is the workspace root itself. They are
// protected as the configuration files are: no tool writes them without a
// person's approval, no confined process writes them at all, so a model
// cannot rewrite the guard that checks its next call.
func (c *Config) HookProtected(workspace string) ([]string, error) {
	hc, _, err := c.HookConfig()
	if err != nil {
		return nil, err
	}
	commands := commandsOf(hc)
	dir := RealPath(workspace)
	var out []string
	if s := c.claudeSettingsPath(); s != "" {
		if parent := filepath.Dir(RealPath(s)); Within(parent, dir) && parent != dir {
			out = append(out, parent)
		}
	}
	if len(commands) == 0 {
		return out, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("hooks: the workspace %s: %w", dir, err)
	}
	defer root.Close()
	return append(out, findHookFiles(root, dir, commands).protected()...), nil
}
