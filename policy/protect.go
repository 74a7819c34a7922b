package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// defaultProtected are the paths that govern Quiver or run code later, inside
// every workspace: the quiver.toml that `quiver --root DIR` would load, the
// script tools and their settings, git's hooks and the configuration git
// reads (core.fsmonitor, core.pager and friends run programs).
var defaultProtected = sandbox.StandardProtected

// protectedPath is one entry of the protected list.
type protectedPath struct {
	pattern string // workspace-relative slash path or glob, or an absolute path
	literal bool   // matched as a path, not as a glob (config files, defaults)
}

// compileProtected builds the protected list: the defaults, the
// configuration files in use, then the operator's globs.
func compileProtected(files, globs []string) ([]protectedPath, error) {
	var out []protectedPath
	for _, d := range defaultProtected {
		out = append(out, protectedPath{pattern: d, literal: true})
	}
	for i, f := range files {
		c, err := cleanProtected(f)
		if err != nil {
			return nil, fmt.Errorf("policy config file [%d]: %w", i, err)
		}
		out = append(out, protectedPath{pattern: c, literal: true})
	}
	for i, g := range globs {
		c, err := ParseProtected(g)
		if err != nil {
			return nil, fmt.Errorf("policy protected[%d]: %w", i, err)
		}
		out = append(out, protectedPath{pattern: c})
	}
	return out, nil
}

// ParseProtected checks one entry of [Config.Protected] and returns it
// clean: a workspace-relative glob (or an absolute path) that does not name
// the whole workspace and does not climb out of it.
func ParseProtected(s string) (string, error) {
	c, err := cleanProtected(s)
	if err != nil {
		return "", err
	}
	if !doublestar.ValidatePattern(c) {
		return "", fmt.Errorf("%q is not a valid glob", s)
	}
	return c, nil
}

// cleanProtected normalises an entry: slash-separated, clean, no leading
// "./" and no trailing "/**" (a directory protects everything below it).
func cleanProtected(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("empty path")
	}
	c := path.Clean(filepath.ToSlash(s))
	for {
		trimmed := strings.TrimSuffix(c, "/**")
		if trimmed == c {
			break
		}
		c = trimmed
	}
	switch {
	case c == "." || c == "**" || c == "/":
		return "", fmt.Errorf("%q would protect the whole workspace", s)
	case c == ".." || strings.HasPrefix(c, "../"):
		return "", fmt.Errorf("%q is outside the workspace (write an absolute path)", s)
	}
	return c, nil
}

// ProtectedPaths returns the paths no tool may write without a person's
// approval and no sandboxed process may write at all: workspace-relative
// slash paths (a directory stands for everything below it, written without
// a trailing "/**"), and absolute paths for files outside the workspace
// (a configuration file named by --config). Entries from the operator's
// protected list may hold glob characters (*, **, ?, [...], {a,b}).
//
// The list always holds quiver.toml, quorum.toml, .quiver and .git, then
// [Config.ConfigFiles], then [Config.Protected]. A .git at any depth is
// protected too, though the list names only the workspace's own.
func (p *Policy) ProtectedPaths() []string {
	out := make([]string, len(p.protected))
	for i, e := range p.protected {
		out[i] = e.pattern
	}
	return out
}

// Sandbox returns the kernel sandbox profile of every process started
// under p in workspace: p's write scope, p's protected paths ([ProtectedPaths]),
// the paths p denies to read_file masked ([ReadDenied]), and cfg's network
// and extra roots. It is the one place a profile is built from a policy:
// the toolkit's (exec_command, custom and script tools, git), MCP
// servers', quiver-models' and `quiver sandbox`'s all come from here, so
// no process gets fewer protected or masked paths than another.
func (p *Policy) Sandbox(workspace string, cfg sandbox.Config) (*sandbox.Profile, error) {
	box, err := sandbox.New(p.scope, workspace, cfg, p.ProtectedPaths())
	if err != nil {
		return nil, err
	}
	// A read deny means every reader: processes see the denied paths empty.
	return box.MaskReads(p.ReadDenied())
}

// protects reports whether the subject path s (clean: workspace-relative
// slash path, or absolute) is protected, and by which entry.
func (p *Policy) protects(s string) (string, bool) {
	s = foldCase(s)
	if inGitDir(s) {
		return gitDir, true
	}
	for _, e := range p.protected {
		pat := foldCase(e.pattern)
		if e.literal {
			if s == pat || strings.HasPrefix(s, pat+"/") {
				return e.pattern, true
			}
			continue
		}
		if doublestar.MatchUnvalidated(pat, s) || doublestar.MatchUnvalidated(pat+"/**", s) {
			return e.pattern, true
		}
	}
	return "", false
}

// foldCase lowers s where file systems ignore case by default (macOS,
// Windows), so that .GIT/config is protected there; on Linux names are
// matched exactly, as the kernel does.
func foldCase(s string) string {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return strings.ToLower(s)
	}
	return s
}

// gitDir is git's metadata directory, or the file that points to one.
const gitDir = ".git"

// inGitDir reports whether the path s (folded as foldCase does) is a .git
// entry, or lies beneath one, at any depth: a nested repository's config
// and hooks run programs in the user's git as the workspace's own do (git
// status enters a submodule; a .git file can send git anywhere).
func inGitDir(s string) bool {
	for _, seg := range strings.Split(s, "/") {
		if seg == gitDir {
			return true
		}
	}
	return false
}

// ReadDenied returns the paths that deny rules refuse to read_file, in
// the workspace's spelling once p is bound to one ([Policy.InWorkspace]:
// workspace-relative globs, or absolute ones outside it), else as written:
// a read deny means every reader, so the sandbox masks them for every
// process a call starts (sandbox.Profile.MaskReads).
func (p *Policy) ReadDenied() []string {
	var out []string
	for _, r := range p.readDenyRules() {
		specs := r.pathSpecs()
		out = append(out, specs[len(specs)-1])
	}
	return out
}

// DeniesRead reports whether a deny rule refuses the path rel (clean,
// workspace-relative with slashes, or absolute) to read_file, and which:
// the question every tool that reads files asks through its workspace
// (workspace.GuardReads), matched as a read_file call's path is.
func (p *Policy) DeniesRead(rel string) (rule string, denied bool) {
	s := tool.Subject{Kind: tool.SubjectPath, Value: rel}
	for _, r := range p.readDenyRules() {
		if r.matchesSubject(s) {
			return r.String(), true
		}
	}
	return "", false
}

// readDenyRules are the deny rules that name a path read_file may not read.
func (p *Policy) readDenyRules() []Rule {
	var out []Rule
	for _, r := range p.deny {
		if r.Spec != "" && !strings.HasPrefix(r.Spec, "domain:") && r.matchesTool("read_file") {
			out = append(out, r)
		}
	}
	return out
}
