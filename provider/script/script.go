package script

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
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

// DefaultDir is the scripts directory, relative to the workspace root.
const DefaultDir = ".quiver/tools"

// DefaultTimeout is a script's timeout when its header sets none.
const DefaultTimeout = 60 * time.Second

// Options configure a Provider.
type Options struct {
	Dir      string   // the scripts directory; a relative one is made absolute against the current directory
	EnvAllow []string // host variables passed on beyond sandbox.BaseEnvNames
	// LowRisk names the scripts (by tool name) the operator rates low-risk
	// ([tools.scripts] low_risk in quiver.toml). Every other script is
	// high-risk, whatever its header says: see [Provider.Tools].
	LowRisk []string
	// Pinned, when not nil, maps the file names that may run to the
	// sha256 (hex) of their content: the host's record of what its
	// operator trusted (quiver trust). A file not listed, or whose content
	// differs, is skipped; a call checks the digest again just before the
	// script starts, so an edit after listing is refused, not run.
	Pinned map[string]string
}

// Provider serves the scripts of one directory.
type Provider struct {
	dir     string
	env     []string
	lowRisk map[string]bool
	pinned  map[string]string

	mu      sync.Mutex
	skipped []string
}

// New returns a provider over opts.Dir. The directory need not exist yet.
func New(opts Options) *Provider {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		dir = opts.Dir // Abs fails only when the working directory is gone
	}
	p := &Provider{dir: dir, env: sandbox.HostEnv(opts.EnvAllow), lowRisk: map[string]bool{}, pinned: opts.Pinned}
	for _, name := range opts.LowRisk {
		p.lowRisk[name] = true
	}
	return p
}

// ID implements provider.Provider.
func (p *Provider) ID() string { return "script" }

// Priority implements provider.Provider.
func (p *Provider) Priority() int { return provider.PriorityScript }

// Skipped lists the files of the last scan that are not tools, each with
// the reason: "name: not executable".
func (p *Provider) Skipped() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.skipped...)
}

// Tools scans the directory. A missing directory is no tools and no error;
// when files are there but none is usable, the error lists why.
//
// A script is high-risk unless the operator lowered it (see risk): its own
// "# quiver: risk low" lowers nothing, because the scripts directory is
// part of the workspace, and whatever can write there would otherwise
// choose which of its programs run without approval.
func (p *Provider) Tools(ctx context.Context) ([]*tool.Tool, error) {
	entries, err := os.ReadDir(p.dir)
	if errors.Is(err, fs.ErrNotExist) {
		p.setSkipped(nil)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scripts: %w", err)
	}
	var tools []*tool.Tool
	var skipped []string
	seen := map[string]string{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		t, err := p.load(e.Name())
		if err == nil && seen[t.Name] != "" {
			err = fmt.Errorf("tool name %s is taken by %s", t.Name, seen[t.Name])
		}
		if err != nil {
			skipped = append(skipped, e.Name()+": "+err.Error())
			continue
		}
		seen[t.Name] = e.Name()
		tools = append(tools, t)
	}
	sort.Strings(skipped)
	p.setSkipped(skipped)
	if len(tools) == 0 && len(skipped) > 0 {
		return nil, fmt.Errorf("scripts in %s skipped: %s", p.dir, strings.Join(skipped, "; "))
	}
	return tools, nil
}

func (p *Provider) setSkipped(s []string) {
	p.mu.Lock()
	p.skipped = s
	p.mu.Unlock()
}

// load reads one file's header and builds its tool.
func (p *Provider) load(file string) (*tool.Tool, error) {
	path := filepath.Join(p.dir, file)
	link, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, errors.New("a directory")
	case !fi.Mode().IsRegular():
		return nil, errors.New("not a regular file")
	case fi.Mode().Perm()&0o111 == 0:
		return nil, errors.New("not executable (chmod +x it)")
	}
	pin, err := p.pin(file, path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	h, err := ParseHeader(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	name := Name(file)
	if name == "" {
		return nil, errors.New("no usable tool name in the file name")
	}
	s := &script{name: name, path: path, header: h, env: p.env, timeout: DefaultTimeout, pin: pin}
	if h.Timeout > 0 {
		s.timeout = h.Timeout
	}
	risk := p.risk(name, h, link)
	return &tool.Tool{
		Name:        name,
		Description: h.Description,
		InputSchema: h.schema(),
		Risk:        risk,
		Annotations: tool.Annotations{ReadOnly: risk == tool.RiskLow},
		Execute:     s.execute,
	}, nil
}

// pin checks file against Pinned and returns the digest it must keep; ""
// when nothing is pinned.
func (p *Provider) pin(file, path string) (string, error) {
	if p.pinned == nil {
		return "", nil
	}
	want, ok := p.pinned[file]
	if !ok {
		return "", errors.New("not trusted (not among the files the operator trusted)")
	}
	if got, err := digest(path); err != nil || got != want {
		return "", errors.New("changed since the operator trusted it")
	}
	return want, nil
}

// digest is the sha256 of the file's content, hex.
func digest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// risk is a script's risk: low only when the operator's quiver.toml names
// it in [tools.scripts] low_risk, the script does not itself declare
// "risk high" (raising is always honoured), and it is a regular file in the
// directory, not a symbolic link, whose content lives wherever it points
// and changes with writes there.
func (p *Provider) risk(name string, h Header, link fs.FileInfo) tool.Risk {
	if p.lowRisk[name] && h.Risk != tool.RiskHigh && link.Mode().IsRegular() {
		return tool.RiskLow
	}
	return tool.RiskHigh
}

// Name is the tool name of a script file: its name without the extension,
// other characters than [A-Za-z0-9_-] replaced by '_', at most 64 bytes.
func Name(file string) string {
	base := strings.TrimSuffix(file, filepath.Ext(file))
	b := []byte(base)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

func (h Header) schema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, p := range h.Params {
		s.Properties[p.Name] = &jsonschema.Schema{Type: p.Type, Description: p.Description}
		if p.Required {
			s.Required = append(s.Required, p.Name)
		}
	}
	return s
}

// script is one loaded script.
type script struct {
	name, path string
	header     Header
	env        []string
	timeout    time.Duration
	pin        string // the digest the file must still have; "" when not pinned
}

// afterTrustCheck runs between a pinned script's digest check and its
// start: a test hook, which replaces the file there.
var afterTrustCheck = func(path string) {}

// stderrTail is how much of standard error a failed call shows.
const stderrTail = 4 << 10

func (s *script) execute(ctx context.Context, tc tool.Context, args json.RawMessage) (tool.Result, error) {
	ws, box, err := command.Place(ctx, tc)
	if err != nil {
		return tool.Result{}, err
	}
	var sealed []byte
	if s.pin != "" {
		// What runs is the content whose digest matched, sealed: the file
		// could be replaced between this check and the start.
		b, err := os.ReadFile(s.path)
		if sum := sha256.Sum256(b); err != nil || hex.EncodeToString(sum[:]) != s.pin {
			return tool.Result{}, tool.Errorf(tool.CodeToolNotAllowed, "script %s changed since the operator trusted it; it was not run", s.name)
		}
		sealed = b
		afterTrustCheck(s.path)
	}
	out, err := command.Run(ctx, command.Process{Argv: []string{s.path}, Dir: ws.Dir(), Env: s.env,
		Stdin: strings.NewReader(string(args)), Timeout: s.timeout, Sandbox: box, Sealed: sealed})
	switch {
	case ctx.Err() != nil:
		return tool.Result{}, tool.Errorf(tool.CodeCancelled, "script %s was cancelled; its process group was killed", s.name)
	case err != nil:
		return tool.Result{}, sandbox.ToolError(fmt.Errorf("script %s: %w", s.name, err))
	case out.TimedOut:
		return tool.Result{}, tool.Errorf(tool.CodeTimeout, "script %s did not finish within %s; its process group was killed", s.name, s.timeout)
	case out.Limit != nil:
		return tool.Result{}, command.LimitError(out)
	}
	stdout := command.Text(out.Stdout)
	if out.ExitCode == 0 {
		return tool.Text(stdout), nil
	}
	text := fmt.Sprintf("exit_code: %d\n%s", out.ExitCode, stdout)
	if errText := tail(command.Text(out.Stderr), stderrTail); errText != "" {
		text += "\nstderr:\n" + errText
	}
	return tool.Result{Parts: []tool.Part{{Type: tool.PartText, Text: text}}, IsError: true}, nil
}

// tail returns at most the last n bytes of s, cut at a line start when one
// is near.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < n/4 {
		s = s[i+1:]
	}
	return "..." + shell.SafeText([]byte(s))
}
