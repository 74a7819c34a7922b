package custom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/command"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// DefaultTimeout is a custom tool's timeout when its spec sets none.
const DefaultTimeout = 60 * time.Second

// Options are the settings shared by every custom tool.
type Options struct {
	// EnvAllow names host variables passed on beyond sandbox.BaseEnvNames
	// ([exec] env_allow).
	EnvAllow []string
}

// Spec is one custom tool: a command template and the parameters that
// fill its placeholders. Package config makes them of quiver.toml's
// [[tools.custom]] and [tools.custom.NAME] tables; a host may write its own.
type Spec struct {
	Name        string
	Description string // "Runs a command." when empty
	// Command is the template: one simple command of literal words and
	// {param} placeholders (see the package documentation).
	Command string
	Params  []Param
	Risk    tool.Risk     // low or high; "" is high
	Timeout time.Duration // 0 or less is DefaultTimeout
	Workdir string        // where it runs, relative to the workspace root; "" is the root
}

// Param is one parameter of a [Spec].
type Param struct {
	Name        string
	Type        string // string, integer, number or boolean; "" is string
	Description string
	Required    bool
	Enum        []string // the values a string parameter may take; nil: any
	// AllowOptions lets a value that starts a word begin with '-', to be
	// read by the program as an option.
	AllowOptions bool
}

// SpecError is what is wrong with one spec given to [New].
type SpecError struct {
	Index int    // the spec's place in New's list
	Name  string // the spec's name, as written
	Err   error
}

func (e *SpecError) Error() string { return fmt.Sprintf("specs[%d] (%s): %v", e.Index, e.Name, e.Err) }

// Unwrap returns what is wrong.
func (e *SpecError) Unwrap() error { return e.Err }

// errDuplicate is a spec whose name an earlier one has.
var errDuplicate = errors.New("duplicate tool name")

// Provider serves custom tools. Its catalogue is fixed when it is built.
type Provider struct {
	tools []*tool.Tool
}

// New builds a tool from each spec. Every problem a spec has is reported
// at once, each a *[SpecError] (joined), so that `quiver config check`
// fails on a template that could never run.
func New(specs []Spec, opts Options) (*Provider, error) {
	p := &Provider{}
	seen := map[string]bool{}
	var errs []error
	for i, s := range specs {
		t, err := build(s, opts)
		switch {
		case err != nil:
			errs = append(errs, &SpecError{Index: i, Name: s.Name, Err: err})
		case seen[s.Name]:
			errs = append(errs, &SpecError{Index: i, Name: s.Name, Err: errDuplicate})
		default:
			seen[s.Name] = true
			p.tools = append(p.tools, t)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

// ID implements provider.Provider.
func (p *Provider) ID() string { return "custom" }

// Priority implements provider.Provider.
func (p *Provider) Priority() int { return provider.PriorityCustom }

// Tools implements provider.Provider.
func (p *Provider) Tools(context.Context) ([]*tool.Tool, error) { return p.tools, nil }

// def is one loaded spec.
type def struct {
	Spec
	tmpl    *Template
	params  map[string]Param
	timeout time.Duration
	env     []string
}

func build(c Spec, opts Options) (*tool.Tool, error) {
	if !tool.ValidName(c.Name) {
		return nil, fmt.Errorf("name must be 1 to 64 letters, digits, '_' or '-'")
	}
	tmpl, err := ParseTemplate(c.Command)
	if err != nil {
		return nil, err
	}
	d := &def{Spec: c, tmpl: tmpl, params: map[string]Param{}, timeout: DefaultTimeout}
	if c.Timeout > 0 {
		d.timeout = c.Timeout
	}
	if c.Workdir != "" && !filepath.IsLocal(c.Workdir) {
		return nil, fmt.Errorf("workdir %q must be a relative path inside the workspace", c.Workdir)
	}
	risk := c.Risk
	switch risk {
	case "":
		risk = tool.RiskHigh
	case tool.RiskLow, tool.RiskHigh:
	default:
		return nil, fmt.Errorf("risk must be low or high, not %q", c.Risk)
	}
	schema, err := d.schema()
	if err != nil {
		return nil, err
	}
	d.env = sandbox.HostEnv(opts.EnvAllow)
	desc := c.Description
	if desc == "" {
		desc = "Runs a command."
	}
	return &tool.Tool{
		Name:        c.Name,
		Description: desc + "\n\nRuns (without a shell): " + c.Command,
		InputSchema: schema,
		Risk:        risk,
		Annotations: tool.Annotations{ReadOnly: risk == tool.RiskLow},
		Subjects:    d.subjects,
		// The template runs without a shell; its command line is
		// shell.Join of the argv, for matching only.
		ArgvCommands: true,
		Execute:      d.execute,
	}, nil
}

// schema checks the parameters against the template and describes them.
func (d *def) schema() (*jsonschema.Schema, error) {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, p := range d.Params {
		if _, dup := d.params[p.Name]; dup {
			return nil, fmt.Errorf("parameter %q declared twice", p.Name)
		}
		if !paramName().MatchString(p.Name) {
			return nil, fmt.Errorf("parameter name %q: use letters, digits, '_' and '-', starting with a letter or '_'", p.Name)
		}
		ps := &jsonschema.Schema{Description: p.Description}
		switch p.Type {
		case "string", "integer", "number", "boolean":
			ps.Type = p.Type
		case "":
			ps.Type = "string"
		default:
			return nil, fmt.Errorf("parameter %q: type must be string, integer, number or boolean, not %q", p.Name, p.Type)
		}
		if len(p.Enum) > 0 {
			if ps.Type != "string" {
				return nil, fmt.Errorf("parameter %q: enum is only supported for string parameters", p.Name)
			}
			for _, e := range p.Enum {
				ps.Enum = append(ps.Enum, e)
			}
		}
		if p.Required {
			s.Required = append(s.Required, p.Name)
		}
		p.Type = ps.Type
		d.params[p.Name] = p
		s.Properties[p.Name] = ps
	}
	used := map[string]bool{}
	for _, name := range d.tmpl.Params() {
		if _, ok := d.params[name]; !ok {
			return nil, fmt.Errorf("command uses {%s}, which is not a declared parameter", name)
		}
		used[name] = true
	}
	for _, p := range d.Params {
		if !used[p.Name] {
			return nil, fmt.Errorf("parameter %q is never used in the command", p.Name)
		}
	}
	return s, nil
}

// paramName is compiled on first use, not when the package is initialised
// (start-up cost).
var paramName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`) })

// argv turns validated arguments into the command's words.
func (d *def) argv(args json.RawMessage) ([]string, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(args, &raw); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be a JSON object: %w", err)
	}
	values := make(map[string]string, len(raw))
	for name, v := range raw {
		p, ok := d.params[name]
		if !ok {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "unknown parameter %q", name)
		}
		s, err := text(p.Type, v)
		if err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "parameter %q: %w", name, err)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "parameter %q: value contains a NUL byte", name)
		}
		values[name] = s
	}
	argv, err := d.tmpl.Expand(values, func(name string) bool { return d.params[name].AllowOptions })
	var oe *OptionError
	if errors.As(err, &oe) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%w", oe)
	}
	return argv, err
}

// text is a JSON value as the word it becomes.
func text(typ string, v json.RawMessage) (string, error) {
	switch typ {
	case "string":
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	case "boolean":
		var b bool
		err := json.Unmarshal(v, &b)
		return strconv.FormatBool(b), err
	default:
		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			return "", err
		}
		if typ == "integer" {
			f, err := n.Float64()
			if err != nil || f != float64(int64(f)) {
				return "", fmt.Errorf("%s is not an integer", n)
			}
			return strconv.FormatInt(int64(f), 10), nil
		}
		return n.String(), nil
	}
}

func (d *def) subjects(args json.RawMessage) ([]tool.Subject, error) {
	argv, err := d.argv(args)
	if err != nil {
		return nil, err
	}
	return []tool.Subject{{Kind: tool.SubjectCommand, Value: shell.Join(argv)}}, nil
}

func (d *def) execute(ctx context.Context, tc tool.Context, args json.RawMessage) (tool.Result, error) {
	argv, err := d.argv(args)
	if err != nil {
		return tool.Result{}, err
	}
	ws, box, err := command.Place(ctx, tc)
	if err != nil {
		return tool.Result{}, err
	}
	dir := ws.Dir()
	if d.Workdir != "" {
		// Stat through the root: a symlink out of the workspace is refused.
		if fi, err := ws.Root().Stat(d.Workdir); err != nil || !fi.IsDir() {
			return tool.Result{}, tool.Errorf(tool.CodeExecutionFailed, "workdir %q is not a directory inside the workspace (check [[tools.custom]] %s)", d.Workdir, d.Name)
		}
		dir = filepath.Join(dir, d.Workdir)
	}
	out, err := command.Run(ctx, command.Process{Argv: argv, Dir: dir, Env: d.env, Timeout: d.timeout, Combined: true, Sandbox: box})
	switch {
	case ctx.Err() != nil:
		return tool.Result{}, tool.Errorf(tool.CodeCancelled, "%s was cancelled; its process group was killed", d.Name)
	case err != nil:
		return tool.Result{}, sandbox.ToolError(err)
	case out.TimedOut:
		return tool.Result{}, tool.Errorf(tool.CodeTimeout, "%s did not finish within %s; its process group was killed. Output so far:\n%s",
			d.Name, d.timeout, tailOf(command.Text(out.Stdout), 4096))
	case out.Limit != nil:
		return tool.Result{}, command.LimitError(out)
	}
	return command.Result(argv, out), nil
}

// tailOf returns at most the last n bytes of s.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + shell.SafeText([]byte(s[len(s)-n:]))
}
