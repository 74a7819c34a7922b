package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
)

// Layer kinds, in the order they are merged.
const (
	LayerExplicit = "--config" // the operator's file named on the command line: the whole configuration
	LayerUser     = "user"     // the operator's file in UserDir
	LayerProject  = "project"  // the workspace's quiver.toml or quorum.toml, and its .quiver/tools
)

// UserFileName is the operator's configuration file in UserDir.
const UserFileName = "config.toml"

// Layer is one file that went into the configuration in force, and how.
type Layer struct {
	Kind string `json:"kind"`
	// Path is the file; for a project with scripts and no configuration
	// file, its scripts directory.
	Path  string     `json:"path"`
	Trust TrustState `json:"trust"` // the operator's layers are trusted
	// Files are a project's files with their digests as read now.
	Files map[string]string `json:"files,omitempty"`
	// Kept and Dropped are, for a project not trusted, the keys applied
	// (each only tightens) and the keys ignored, as "file:line:col key".
	Kept    []string `json:"kept,omitempty"`
	Dropped []string `json:"dropped,omitempty"`
}

// LoadOptions say where the layers come from.
type LoadOptions struct {
	// Explicit is --config FILE: the whole configuration, trusted; neither
	// the user's file nor the project's is read, as before layers existed.
	Explicit string
	// Dir is the project directory (--root, else the current directory).
	// Only this directory is looked in: a project configuration governs
	// its own directory, never one it is above or was moved from.
	Dir string
	// UserDir overrides UserDir(), for tests and hosts.
	UserDir string
	// Environ is the environment whose QUIVER_* variables make the
	// environment layer (EnvKeys); nil reads the process's (os.Environ).
	Environ []string
}

// LoadLayers reads the configuration in force: the operator's file (--config,
// else UserDir's config.toml, both trusted), then the project's, merged
// whole when the operator trusted it as it is now and otherwise reduced to
// the keys that only tighten (see the package doc). The project's bytes
// are read once, hashed and parsed from the same buffer.
func LoadLayers(o LoadOptions) (*Config, error) {
	userDir := o.UserDir
	if userDir == "" {
		// No user directory (no HOME, as under some service managers):
		// then there is no user file and no project is trusted.
		userDir, _ = UserDir()
	}
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	proj, err := ReadProject(dir)
	if err != nil {
		return nil, err
	}
	if userDir != "" && Within(RealPath(userDir), proj.Dir) {
		if o.Explicit != "" {
			// --config needs the user's directory for the project's trust
			// alone, and a trust file the workspace could write trusts
			// nothing: its scripts stay untrusted.
			userDir = ""
		} else {
			return nil, fmt.Errorf("the user configuration directory %s is inside the workspace %s, where what runs there can write its own configuration and trust; "+
				"set XDG_CONFIG_HOME to a directory outside it, or give --config FILE", userDir, proj.Dir)
		}
	}
	state := TrustState("")
	if !proj.Empty() {
		state = NotTrusted
	}
	var changed []string
	if !proj.Empty() && userDir != "" {
		trust, err := ReadTrust(userDir)
		if err != nil {
			return nil, err
		}
		if state = trust.State(proj); state == Changed {
			changed = trust.ChangedFiles(proj)
		}
	}
	environ := o.Environ
	if environ == nil {
		environ = os.Environ()
	}
	env, envNames, err := fromEnv(environ)
	if err != nil {
		return nil, err
	}
	var merged *Config
	if o.Explicit != "" {
		// Its scripts are still the project's: they run only when trusted.
		if merged, err = Load(o.Explicit); err != nil {
			return nil, err
		}
		merged.Layers = []Layer{{Kind: LayerExplicit, Path: o.Explicit, Trust: Trusted}}
		merged.Files = []string{o.Explicit}
		if len(envNames) > 0 {
			mergeEnv(merged, env, envNames)
			if err := merged.check(); err != nil {
				return nil, fmt.Errorf("%s + environment: %w", o.Explicit, err)
			}
		}
	} else {
		merged = &Config{}
		if userDir != "" {
			if err := loadUser(merged, filepath.Join(userDir, UserFileName)); err != nil {
				return nil, err
			}
		}
		if !proj.Empty() {
			if err := mergeProject(merged, proj, state); err != nil {
				return nil, err
			}
		}
		if len(envNames) > 0 {
			mergeEnv(merged, env, envNames)
		}
		if err := merged.check(); err != nil {
			var ce *Error
			if errors.As(err, &ce) { // it names its own file
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", strings.Join(merged.Files, " + "), err)
		}
	}
	merged.Project, merged.ProjectState, merged.ProjectChanged = proj, state, changed
	if p := merged.claudeSettingsPath(); p != "" && !slices.Contains(merged.Files, p) {
		merged.Files = append(merged.Files, p) // protected as the configuration is
	}
	return merged, nil
}

// mergeEnv lays the environment's keys over c, after every file: the
// operator set them for this process, as a flag is set for one command.
func mergeEnv(c, env *Config, names []string) {
	mergeInto(c, env)
	c.Layers = append(c.Layers, Layer{Kind: LayerEnv, Path: strings.Join(names, " "), Trust: Trusted})
}

// loadUser merges the user's file into c when it exists.
func loadUser(c *Config, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	u, err := Load(path)
	if err != nil {
		return err
	}
	if err := u.absolutePaths(); err != nil {
		return err
	}
	for i := range u.refs {
		u.refs[i].User = true
	}
	mergeInto(c, u)
	c.Layers = append(c.Layers, Layer{Kind: LayerUser, Path: path, Trust: Trusted})
	return nil
}

// mergeProject merges the project's configuration into c: whole when
// trusted, only its tightening keys otherwise.
func mergeProject(c *Config, proj *Project, state TrustState) error {
	l := Layer{Kind: LayerProject, Path: filepath.Join(proj.Dir, ScriptsDir), Trust: state, Files: proj.Files}
	if proj.File != "" {
		l.Path = filepath.Join(proj.Dir, proj.File)
		pc, err := Parse(l.Path, proj.data)
		if err != nil {
			return err
		}
		if err := pc.absolutePaths(); err != nil {
			return err
		}
		if state != Trusted {
			pc, l.Kept, l.Dropped = tighten(c, pc)
		}
		mergeInto(c, pc)
	}
	c.Layers = append(c.Layers, l)
	return nil
}

// absolutePaths makes the paths a file writes relative to its own
// directory absolute, so that they keep their meaning once merged with
// another file's.
func (c *Config) absolutePaths() error {
	if c.Path == "" {
		return nil
	}
	abs, err := filepath.Abs(c.Path)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Path, err)
	}
	c.Path = abs
	c.Workspace.Root = c.Resolve(c.Workspace.Root)
	c.Output.Dir = c.Resolve(c.Output.Dir)
	c.Hooks.ClaudeSettings = c.claudeSettingsPath()
	for name, o := range c.Outputs {
		o.Schema = c.Resolve(o.Schema)
		c.Outputs[name] = o
	}
	return nil
}

// mergeInto lays src over dst: a value src sets replaces dst's, lists are
// appended (rules, protected paths, servers: each layer adds), tables
// merge key by key, [tools] providers is replaced whole (it is an order).
// A later layer cannot unset what an earlier one set: zero values are
// "not written".
func mergeInto(dst, src *Config) {
	providers := dst.Tools.Providers
	if src.Tools.Providers != nil {
		providers = src.Tools.Providers
	}
	mergeValue(reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem())
	dst.Tools.Providers = providers
	dst.refs = append(dst.refs, src.refs...)
	if src.Path != "" {
		dst.Path = src.Path
		dst.Files = append(dst.Files, src.Path)
	}
}

func mergeValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Struct:
		for i := range src.NumField() {
			f := src.Type().Field(i)
			if !f.IsExported() || f.Tag.Get("toml") == "-" {
				continue
			}
			mergeValue(dst.Field(i), src.Field(i))
		}
	case reflect.Slice:
		if src.Len() > 0 {
			dst.Set(reflect.AppendSlice(dst, src))
		}
	case reflect.Map:
		if src.Len() == 0 {
			return
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMap(src.Type()))
		}
		for _, k := range src.MapKeys() {
			dst.SetMapIndex(k, src.MapIndex(k))
		}
	default:
		if !src.IsZero() {
			dst.Set(src)
		}
	}
}

// tighten keeps of an untrusted project's configuration only what makes
// the configuration so far (base) stricter, by an allowlist: a key is
// kept only if it is listed here and its value tightens; every other key
// (a key added to Config later included) is dropped. It returns the
// configuration to merge and the keys kept and dropped, with positions.
func tighten(base, p *Config) (out *Config, kept, dropped []string) {
	out = &Config{Path: p.Path}
	ws, _ := scanWritten(p.Path, p.data)
	baseDefault := decisionRank(base.Policy.Default.Decision)
	askTightens := base.Policy.Default.Decision != policy.Deny
	for _, w := range ws {
		if w.Elem {
			continue
		}
		ok := false
		switch k := w.key(); {
		case k == "policy.deny":
			out.Policy.Deny, ok = p.Policy.Deny, true
		case k == "policy.protected":
			out.Policy.Protected, ok = p.Policy.Protected, true
		case k == "audit.redact":
			out.Audit.Redact, ok = p.Audit.Redact, true
		case k == "policy.ask" && askTightens:
			out.Policy.Ask, ok = p.Policy.Ask, true
		case k == "policy.default" && decisionRank(p.Policy.Default.Decision) >= baseDefault:
			out.Policy.Default, ok = p.Policy.Default, true
		case k == "workspace.write_scope" && scopeRank(p.Workspace.WriteScope.WriteScope) <= scopeRank(base.Workspace.WriteScope.WriteScope):
			out.Workspace.WriteScope, ok = p.Workspace.WriteScope, true
		case k == "sandbox.read" && p.Sandbox.Read.Workspace:
			out.Sandbox.Read, ok = p.Sandbox.Read, true
		case k == "serve.ask_fallback" && p.Serve.AskFallback.Decision == policy.Deny:
			out.Serve.AskFallback, ok = p.Serve.AskFallback, true
		case len(w.Path) == 3 && w.Path[0] == "policy" && w.Path[1] == "tools":
			ok = tightenTool(out, base, p, w.Path[2], askTightens)
		}
		entry := w.Pos + " " + w.key()
		if ok {
			kept = append(kept, entry)
		} else {
			dropped = append(dropped, entry)
		}
	}
	out.refs = keptRefs(p.refs, kept)
	return out, kept, dropped
}

// tightenTool keeps [policy.tools] name when it is stricter than what the
// base says of the tool: deny always, ask unless the base denies it or
// denies by default (an ask would open what was shut).
func tightenTool(out, base, p *Config, name string, askTightens bool) bool {
	d := p.Policy.Tools[name]
	was, set := base.Policy.Tools[name]
	switch {
	case d.Decision == policy.Deny:
	case d.Decision == policy.Ask && askTightens && (!set || was.Decision != policy.Deny):
	default:
		return false
	}
	if out.Policy.Tools == nil {
		out.Policy.Tools = map[string]Decision{}
	}
	out.Policy.Tools[name] = d
	return true
}

// keptRefs are the tool references of the keys kept.
func keptRefs(refs []ToolRef, kept []string) []ToolRef {
	keys := map[string]bool{}
	for _, k := range kept {
		_, key, _ := strings.Cut(k, " ")
		keys[key] = true
	}
	var out []ToolRef
	for _, r := range refs {
		if keys[r.Key] {
			out = append(out, r)
		}
	}
	return out
}

// decisionRank orders decisions by strictness; unset is ask, policy's
// default.
func decisionRank(d policy.Decision) int {
	switch d {
	case policy.Allow:
		return 0
	case policy.Deny:
		return 2
	}
	return 1
}

// scopeRank orders write scopes by breadth; unset is workspace-write.
func scopeRank(s sandbox.WriteScope) int {
	switch s {
	case sandbox.ReadOnly:
		return 0
	case sandbox.Unrestricted:
		return 2
	}
	return 1
}

// RealPath is p absolute, with links resolved as far as it exists: a directory not
// made yet is judged by where its existing parent really is.
func RealPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	var rest []string
	for cur := abs; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if filepath.Dir(cur) == cur {
			return abs
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
}

// Within reports whether p is dir or below it; both absolute and clean.
func Within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
