package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
)

// Config is the whole of quiver.toml.
type Config struct {
	Workspace Workspace             `toml:"workspace"`
	Policy    Policy                `toml:"policy"`
	Output    Output                `toml:"output"`
	Exec      Exec                  `toml:"exec"`
	Tools     Tools                 `toml:"tools"`
	Outputs   map[string]OutputType `toml:"outputs"`
	Serve     Serve                 `toml:"serve"`
	Web       Web                   `toml:"web"`
	Audit     Audit                 `toml:"audit"`
	// Sandbox is how the processes tools start are confined (package
	// sandbox): network, extra writable roots, or off.
	Sandbox sandbox.Config `toml:"sandbox"`
	// Run is the model `quiver run` drives and how.
	Run Run `toml:"run"`
	// Review, when the section is present, sends calls to reviewer models
	// before they run (review.go).
	Review *Review `toml:"review"`
	// Hooks are the operator's programs run around calls (package hooks;
	// HookConfig adds a Claude Code settings file's). Code: an untrusted
	// project's are dropped.
	Hooks hooks.Config `toml:"hooks"`

	// Path is the file the configuration was read from, the last layer's
	// when several were merged ("" for defaults).
	Path string `toml:"-"`
	// Files are every file merged into this configuration, in order: all
	// of them are protected from the tools' writes.
	Files []string `toml:"-"`
	// Layers say which files are in force and how (LoadLayers).
	Layers []Layer `toml:"-"`
	// Project is the project directory's files as read, and ProjectState
	// their trust ("" when there are none); nil without LoadLayers. With
	// --config the project's configuration is not read, but its scripts
	// still run only when it is trusted.
	Project      *Project   `toml:"-"`
	ProjectState TrustState `toml:"-"`
	// ProjectChanged are, for a project changed since trusted, the files
	// whose digest is not the one trusted (added and removed ones too).
	ProjectChanged []string `toml:"-"`

	data []byte    // the bytes parsed, for positions
	refs []ToolRef // the tool names the rules in force write
}

// Workspace is the [workspace] section.
type Workspace struct {
	Root       string     `toml:"root"` // relative to the config file's directory; default: the current directory
	WriteScope WriteScope `toml:"write_scope"`
	// Backend serves the tools' files: "local" (root, the default), "git"
	// (one commit of the repository at root, read-only; implied by ref
	// alone) or "github" (a repository on GitHub, read-only). See
	// [Workspace.Check].
	Backend  string `toml:"backend"`
	Ref      string `toml:"ref"`       // git: the commit (required); github: a branch, tag or sha (default: the repository's default branch)
	Repo     string `toml:"repo"`      // github: owner/name
	TokenEnv string `toml:"token_env"` // github: the variable holding the token (default GITHUB_TOKEN)
	APIURL   string `toml:"api_url"`   // github: the REST API's root (default https://api.github.com/; GitHub Enterprise's https://HOST/api/v3/)
}

// Policy is the [policy] section.
type Policy struct {
	Default Decision            `toml:"default"`
	Allow   []Rule              `toml:"allow"`
	Ask     []Rule              `toml:"ask"`
	Deny    []Rule              `toml:"deny"`
	Tools   map[string]Decision `toml:"tools"`
	// Protected lists further paths whose writing always asks, and that no
	// sandboxed process may write: workspace-relative globs ("deploy/**",
	// "Makefile") or absolute paths. Quiver's own files are always protected.
	Protected []ProtectedPath `toml:"protected"`
}

// The value types below are structs, not strings, on purpose: go-toml calls
// UnmarshalText only for types that are not of string kind, and UnmarshalText
// is what lets a bad value be reported at its line and column.

// Rule is a policy rule, checked where it is written.
type Rule struct{ Text string }

// UnmarshalText parses the rule so that a bad one is reported with its line.
func (r *Rule) UnmarshalText(b []byte) error {
	if _, err := policy.ParseRule(string(b)); err != nil {
		return err
	}
	r.Text = string(b)
	return nil
}

// ProtectedPath is an entry of policy.protected, checked where it is written.
type ProtectedPath struct{ Text string }

// UnmarshalText checks the entry so that a bad one is reported with its line.
func (p *ProtectedPath) UnmarshalText(b []byte) error {
	if _, err := policy.ParseProtected(string(b)); err != nil {
		return err
	}
	p.Text = string(b)
	return nil
}

// Decision is allow, ask or deny, checked where it is written.
type Decision struct{ policy.Decision }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Decision) UnmarshalText(b []byte) error { return d.Decision.UnmarshalText(b) }

// WriteScope is a [sandbox.WriteScope], checked where it is written.
type WriteScope struct{ sandbox.WriteScope }

// UnmarshalText implements encoding.TextUnmarshaler.
func (w *WriteScope) UnmarshalText(b []byte) error { return w.WriteScope.UnmarshalText(b) }

// Output is the [output] section: the message budget and the store.
type Output struct {
	MaxBytes      int `toml:"max_bytes"`       // default 51200
	MaxLines      int `toml:"max_lines"`       // default 2000
	MaxLineLength int `toml:"max_line_length"` // default 2000
	// Store is "memory", "dir", or a Redis URL (redis://, rediss://,
	// unix://) that several `quiver serve` replicas share.
	Store         string `toml:"store"`
	Dir           string `toml:"dir"`             // for the dir store
	MaxTotalBytes int64  `toml:"max_total_bytes"` // store cap
	MaxAgeHours   int    `toml:"max_age_hours"`   // dir and Redis stores
}

// Run is the [run] section: the defaults of `quiver run`, each overridden by
// the flag of the same name. [Run.Check] checks them, at load and in
// `quiver run`.
type Run struct {
	Provider          string `toml:"provider"` // openai | anthropic | gemini
	Model             string `toml:"model"`
	BaseURL           string `toml:"base_url"`
	API               string `toml:"api"`                 // OpenAI: responses | chat
	ThinkingBudget    int    `toml:"thinking_budget"`     // Anthropic extended thinking (Gemini: thinkingBudget)
	ReasoningEffort   string `toml:"reasoning_effort"`    // low | medium | high
	MaxOutputTokens   int    `toml:"max_output_tokens"`   // per reply
	ToolChoice        string `toml:"tool_choice"`         // auto | none | required | a tool's name
	ParallelToolCalls *bool  `toml:"parallel_tool_calls"` // unset: the provider's default
	QuietThinking     bool   `toml:"quiet_thinking"`
	// System replaces the default system prompt (agent.DefaultSystem);
	// SystemAppend is added after it, or after System.
	System       string `toml:"system"`
	SystemAppend string `toml:"system_append"`
}

// Exec is the [exec] section.
type Exec struct {
	EnvAllow           []string `toml:"env_allow"`
	DefaultTimeoutSecs int      `toml:"default_timeout_secs"`
	MaxTimeoutSecs     int      `toml:"max_timeout_secs"`
	LowRiskCommands    []string `toml:"low_risk_commands"`
}

// Tools is the [tools] section: tool sources.
type Tools struct {
	// Providers, when set, names the tool sources that are on, most
	// preferred first (providers.go).
	Providers            []ProviderKind `toml:"providers"`
	Builtin              Builtin        `toml:"builtin"`
	SuggestEnhancedTools bool           `toml:"suggest_enhanced_tools"`
	CLI                  CLI            `toml:"cli"`
	MCP                  MCP            `toml:"mcp"`
	Custom               []Custom       `toml:"custom"`
	Scripts              ScriptTools    `toml:"scripts"`

	// Defer and AlwaysLoad choose what a model is shown up front: tools
	// (names, or patterns such as "github__*") held back behind tool
	// search, and tools always shown, which wins. A tool neither names is
	// deferred unless it is one of the core tools (tools.Core);
	// always_load = ["*"] defers nothing.
	Defer      []string `toml:"defer"`
	AlwaysLoad []string `toml:"always_load"`
}

// CLI is [tools.cli].
type CLI struct {
	Enabled  *bool             `toml:"enabled"` // the spec's spelling; enabled = false is disabled = true
	Disabled bool              `toml:"disabled"`
	Aliases  map[string]string `toml:"aliases"` // tool name -> program, e.g. grep_search = "rg"
}

// MCP is [tools.mcp].
type MCP struct {
	Enabled *bool       `toml:"enabled"` // false: no server is started
	Servers []MCPServer `toml:"servers"`
}

// MCPServer is one [[tools.mcp.servers]] entry.
type MCPServer struct {
	Name          string            `toml:"name"`
	Command       string            `toml:"command"`
	Args          []string          `toml:"args"`
	Env           map[string]string `toml:"env"`
	URL           string            `toml:"url"`
	Headers       map[string]string `toml:"headers"`
	EnabledTools  []string          `toml:"enabled_tools"`
	DisabledTools []string          `toml:"disabled_tools"`
	TimeoutSecs   int               `toml:"timeout"`
	Risk          string            `toml:"risk"`
	// Sandbox = false starts a stdio server unconfined (it runs in the
	// sandbox by default). Network adds to [sandbox] network for this
	// server: true lets it reach every host while confined otherwise, a
	// list of host patterns those hosts through the proxy.
	Sandbox *bool           `toml:"sandbox"`
	Network sandbox.Network `toml:"network"`
	// At is where the entry is written, for errors about it; the zero
	// Position for an entry no file wrote.
	At Position `toml:"-"`
}

// Custom is one [[tools.custom]] command-template tool.
type Custom struct {
	Name        string        `toml:"name"`
	Description string        `toml:"description"`
	Command     string        `toml:"command"`
	Params      []CustomParam `toml:"params"`
	Risk        string        `toml:"risk"`
	TimeoutSecs int           `toml:"timeout"`
	Workdir     string        `toml:"workdir"`
	// At is where the tool is written, for errors about it; the zero
	// Position for a tool no file wrote.
	At Position `toml:"-"`
}

// CustomParam is one parameter of a custom tool.
type CustomParam struct {
	Name         string   `toml:"name"`
	Type         string   `toml:"type"`
	Description  string   `toml:"description"`
	Required     bool     `toml:"required"`
	Enum         []string `toml:"enum"`
	AllowOptions bool     `toml:"allow_options"`
}

// ScriptTools is [tools.scripts].
type ScriptTools struct {
	Dir string `toml:"dir"` // default .quiver/tools
	// LowRisk names the scripts the operator rates low-risk; every other
	// script is high-risk, whatever its own header says.
	LowRisk []string `toml:"low_risk"`
}

// OutputType is one [outputs.NAME] entry for validate_output.
type OutputType struct {
	Schema string `toml:"schema"` // path to a JSON Schema file, relative to the config file
}

// Serve is the [serve] section.
type Serve struct {
	AskFallback Decision `toml:"ask_fallback"` // what "ask" becomes when the client cannot be asked; default deny
}

// Web is the [web] section, for web_fetch and web_search.
type Web struct {
	SearchURL    string `toml:"search_url"`    // a SearXNG-compatible JSON endpoint; empty: DuckDuckGo
	AllowPrivate bool   `toml:"allow_private"` // let web_fetch reach loopback and private networks
	// DuckDuckGoURL replaces the public DuckDuckGo origin web_search asks
	// when search_url is empty (a proxy, a test server).
	DuckDuckGoURL string `toml:"duckduckgo_url"`
}

// Audit is the [audit] section.
type Audit struct {
	// Redact names further secrets, beyond audit.DefaultSecretNames (which
	// always apply), whose values audit records never quote.
	Redact []string `toml:"redact"`
}

// FileNames are the names a project's configuration file is looked for by,
// in order: Quiver's own, then the name of the plugin tool system whose
// configuration Quiver reads unchanged.
var FileNames = []string{"quiver.toml", "quorum.toml"}

// Load reads and checks the file at path; "" gives the defaults.
func Load(path string) (*Config, error) {
	if path == "" {
		return &Config{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Parse decodes data (read from name, used in messages) strictly and checks
// what decoding cannot.
func Parse(name string, data []byte) (*Config, error) {
	var c Config
	if err := decode(data, &c); err != nil {
		return nil, positioned(name, err)
	}
	c.Path, c.data = name, data
	ws, err := scanWritten(name, data)
	if err != nil {
		return nil, err
	}
	c.refs = toolRefs(ws)
	c.placeEntries(name, ws)
	for _, e := range hooks.Events {
		for i := range c.Hooks.For(e) {
			c.Hooks.For(e)[i].Source = fmt.Sprintf("%s: hooks.%s[%d]", name, e, i)
		}
	}
	if err := c.checkRun(name, ws); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, placed(Position{File: name}, err)
	}
	return &c, nil
}

// placed is err as an *Error: itself when it is one (it knows its place),
// else an error at pos.
func placed(pos Position, err error) error {
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	return &Error{Pos: pos, Msg: err.Error(), Err: err}
}

// placeEntries records where each custom tool and MCP server is written:
// the header of its [[tools.custom]] or [[tools.mcp.servers]] table, the
// first key of a [tools.custom.NAME] table, or the key of an inline array
// that holds it. An entry whose place is not found is placed at the file.
func (c *Config) placeEntries(name string, ws []written) {
	file := Position{File: name}
	var customs, servers []Position
	specs := map[string]Position{}
	for _, w := range ws {
		switch {
		case w.Elem || len(w.Path) < 2 || w.Path[0] != "tools":
		case len(w.Path) == 2 && w.Path[1] == "custom":
			customs = append(customs, w.At)
		case len(w.Path) == 3 && w.Path[1] == "mcp" && w.Path[2] == "servers":
			servers = append(servers, w.At)
		case len(w.Path) > 3 && w.Path[1] == "custom":
			if _, ok := specs[w.Path[2]]; !ok {
				specs[w.Path[2]] = w.At
			}
		}
	}
	at := func(list []Position, i int) Position {
		switch {
		case i < len(list):
			return list[i]
		case len(list) == 1: // one inline array holds them all
			return list[0]
		}
		return file
	}
	for i := range c.Tools.Custom {
		if p, ok := specs[c.Tools.Custom[i].Name]; ok {
			c.Tools.Custom[i].At = p
		} else {
			c.Tools.Custom[i].At = at(customs, i)
		}
	}
	for i := range c.Tools.MCP.Servers {
		c.Tools.MCP.Servers[i].At = at(servers, i)
	}
}

// positioned rewrites go-toml's errors as "file:line:col: message".
func positioned(name string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var errs []error
		for _, e := range strict.Errors {
			row, col := e.Position()
			errs = append(errs, &Error{Pos: Position{File: name, Line: row, Col: col}, Msg: fmt.Sprintf("unknown key %q", strings.Join(e.Key(), "."))})
		}
		return errors.Join(errs...)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if s, ok := typeSentence(de.Key(), msg); ok {
			msg = s
		}
		return &Error{Pos: Position{File: name, Line: row, Col: col}, Msg: msg, Err: err}
	}
	return &Error{Pos: Position{File: name}, Msg: err.Error(), Err: err}
}

// check validates what the decoder cannot see.
func (c *Config) check() error {
	seen := map[string]bool{}
	for i, s := range c.Tools.MCP.Servers {
		var msg string
		switch {
		case s.Name == "":
			msg = fmt.Sprintf("tools.mcp.servers[%d]: name is required", i)
		case seen[s.Name]:
			msg = fmt.Sprintf("tools.mcp.servers[%d]: duplicate name %q", i, s.Name)
		case (s.Command == "") == (s.URL == ""):
			msg = fmt.Sprintf("tools.mcp.servers[%d] (%s): set exactly one of command and url", i, s.Name)
		case s.Risk != "" && s.Risk != "low" && s.Risk != "high":
			msg = fmt.Sprintf("tools.mcp.servers[%d] (%s): risk must be low or high", i, s.Name)
		}
		if msg != "" {
			return s.errorAt(msg)
		}
		seen[s.Name] = true
	}
	for _, l := range []struct {
		name  string
		rules []Rule
	}{{"allow", c.Policy.Allow}, {"ask", c.Policy.Ask}, {"deny", c.Policy.Deny}} {
		for i, r := range l.rules {
			if r.Text == "" {
				return fmt.Errorf("policy.%s[%d]: a rule must be a non-empty string", l.name, i)
			}
		}
	}
	if err := c.Tools.checkProviders(); err != nil {
		return err
	}
	if c.Review != nil {
		if err := c.Review.check(); err != nil {
			return err
		}
	}
	if err := c.Hooks.Check(); err != nil {
		return err
	}
	if err := c.Workspace.Check(); err != nil {
		return err
	}
	return c.Output.checkStore()
}

// RedisStore reports whether the store is a Redis URL.
func (o Output) RedisStore() bool {
	scheme, _, ok := strings.Cut(o.Store, "://")
	return ok && (scheme == "redis" || scheme == "rediss" || scheme == "unix")
}

// checkStore checks output.store's form; a URL's password is never
// repeated in the message.
func (o Output) checkStore() error {
	switch s := o.Store; {
	case s == "" || s == "memory" || s == "dir":
		return nil
	case o.RedisStore():
		u, err := url.Parse(s)
		if err != nil || (u.Scheme == "unix" && u.Path == "") || (u.Scheme != "unix" && u.Host == "") {
			return fmt.Errorf("output.store: a Redis URL is redis://[user:password@]host:port[/db], rediss://... or unix:///path/to/redis.sock[?db=N]")
		}
		return nil
	case strings.Contains(s, "://"):
		return fmt.Errorf("output.store: a URL of scheme %q; want redis://, rediss:// or unix://", strings.SplitN(s, "://", 2)[0])
	}
	return fmt.Errorf("output.store: %q, want memory, dir or a Redis URL (redis://host:6379/0, unix:///path/to/redis.sock)", o.Store)
}

// PolicyConfig converts the [policy] section for policy.New.
func (c *Config) PolicyConfig() policy.Config {
	conv := func(rs []Rule) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = r.Text
		}
		return out
	}
	tools := map[string]policy.Decision{}
	for name, d := range c.Policy.Tools {
		tools[name] = d.Decision
	}
	var protected []string
	for _, p := range c.Policy.Protected {
		protected = append(protected, p.Text)
	}
	return policy.Config{Default: c.Policy.Default.Decision, Allow: conv(c.Policy.Allow), Ask: conv(c.Policy.Ask),
		Deny: conv(c.Policy.Deny), Tools: tools, Protected: protected}
}

// Resolve returns p relative to the config file's directory when it is
// relative and a file was loaded.
func (c *Config) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) || c.Path == "" {
		return p
	}
	return filepath.Join(filepath.Dir(c.Path), p)
}

// errorAt is msg as an error at the server's place, when a file wrote it.
func (s MCPServer) errorAt(msg string) error {
	if s.At.File == "" {
		return errors.New(msg)
	}
	return &Error{Pos: s.At, Msg: msg}
}

// GitHub reports whether the workspace is a GitHub repository.
func (w Workspace) GitHub() bool { return w.Backend == "github" }
