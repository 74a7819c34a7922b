// Package cli is the provider that serves the search tools with faster
// programs when they are installed: ripgrep (rg) for grep_search and
// search_code, fd (fdfind on Debian) for glob_search.
//
// # The same tools, another engine
//
// The tools it offers are the built-in tools themselves — same names, same
// input schemas, same typed outputs and rendering, built with the
// constructors of package tools — with the search done by the program
// instead of in process. Each program's output is fed to the same
// collectors the built-in engine feeds, and the program is run with flags
// that make it search exactly what the engine searches:
//
//   - the pattern is the engine's line-safe form of it (classes such as \w
//     spelled out as Go reads them), passed with --regexp= so no pattern
//     can be read as an option, and paths come after "--";
//   - ignore files are those of the workspace (.gitignore without needing
//     a git repository, .ignore), none from above the workspace or from
//     the user's global git configuration; .quiverignore, which the
//     programs do not know, and the ignore files of the directories above
//     the one searched, which they are told not to read, are applied to
//     their output by package workspace's matcher;
//   - hidden names only when the file pattern asks, .git never, symlinks
//     not followed, no encoding sniffing;
//   - a single file named as the path is searched in process (ripgrep
//     treats binary files given by name differently).
//
// # Where the programs differ
//
// Where a program cannot match the engine's semantics (a pattern it does
// not parse, output lines too long to hold), the call is served in process,
// so an answer never differs. The differences that remain are in corners:
// ripgrep's "." does not match bytes that are not UTF-8 where Go's does,
// and the programs honour their own .rgignore and .fdignore files.
//
// # Detection
//
// A tool whose program is missing is simply not offered here; the builtin
// provider, at a lower priority, serves it. The programs are looked for when
// the provider is first listed, not when it is built: the registry lists it
// only for the names it is configured for ([Provider.MayOffer]), so a call
// of read_file costs no PATH search. [Provider.Backends] says which
// program backs each tool, for `quiver tools`.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// ID is the CLI provider's ID.
const ID = "cli"

// DefaultTimeout bounds one run of a program.
const DefaultTimeout = 60 * time.Second

// Options configure the provider; they come from quiver.toml's [tools.cli]
// section and suggest_enhanced_tools.
type Options struct {
	// Aliases maps a tool name to the program that serves it:
	// grep_search = "rg", glob_search = "fd". A program is named as in
	// PATH or by its path; "builtin" (or "") leaves a tool to the builtin
	// provider. Tools not named keep the defaults: rg for grep_search and
	// search_code, fd (or fdfind) for glob_search.
	Aliases map[string]string
	// SuggestEnhanced makes Suggestions name the programs to install.
	SuggestEnhanced bool
	// Timeout bounds one run of a program; 0 means DefaultTimeout.
	Timeout time.Duration
	// LookPath finds a program; nil means exec.LookPath. Tests set it.
	LookPath func(string) (string, error)
	// EnvAllow names host variables passed on, beyond sandbox.BaseEnvNames,
	// to the programs of tools that wrap one ([exec] env_allow).
	EnvAllow []string
}

// Backend says which program backs a tool.
type Backend struct {
	Tool    string // the tool's name
	Program string // as configured: "rg", "fd", "/opt/bin/rg"
	Path    string // where it was found; "" when the tool is not offered here
	Note    string // why not, when it is not offered
	// Wraps is set for a tool of its own that runs Program (an alias whose
	// name is not a built-in); Path is "" when Program was not found now.
	Wraps bool
}

// kind is a supported program family.
type kind int

const (
	kindNone kind = iota
	kindRipgrep
	kindFd
)

// defaults are the programs tried when the configuration names none.
var defaults = map[string]string{
	tools.GrepSearch.Name: "rg",
	tools.SearchCode.Name: "rg",
	tools.GlobSearch.Name: "fd",
}

// accepts lists which program families can serve each tool.
var accepts = map[string]kind{
	tools.GrepSearch.Name: kindRipgrep,
	tools.SearchCode.Name: kindRipgrep,
	tools.GlobSearch.Name: kindFd,
}

// Provider serves the search tools through external programs.
type Provider struct {
	opts    Options
	names   []string              // every name configured here, sorted
	wrapped map[string]*tool.Tool // the aliases that run a program of their own
	errs    []error

	once     sync.Once // detection, at the first listing
	backends []Backend
	tools    []*tool.Tool
}

// New reads the configuration; the programs are looked for when the
// provider is first listed (a missing one costs a stat per PATH entry, and
// most calls never need one). Aliases for built-in tools this provider
// cannot serve are reported by Backends, not refused: a configuration
// written for another runtime still loads. An alias whose name is not a
// built-in defines a tool that runs its program (wrap.go); one that cannot
// is reported by Err, now.
func New(opts Options) *Provider {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	p := &Provider{opts: opts, wrapped: map[string]*tool.Tool{}}
	names := make([]string, 0, len(defaults))
	for name := range defaults {
		names = append(names, name)
	}
	for name := range opts.Aliases {
		if _, ok := defaults[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if _, known := accepts[name]; !known && !builtinName(name) {
			t, err := newWrapped(name, opts.Aliases[name], &p.opts)
			if err != nil {
				p.errs = append(p.errs, err)
				continue
			}
			p.wrapped[name] = t
		}
		p.names = append(p.names, name)
	}
	return p
}

// MayOffer reports whether name is configured here ([provider.Scoped]):
// whether the provider offers it depends on the programs it finds.
func (p *Provider) MayOffer(name string) bool {
	_, ok := slices.BinarySearch(p.names, name)
	return ok
}

// detect looks the programs up, once, and builds the tools they back.
func (p *Provider) detect() {
	p.once.Do(func() {
		look := lookOnce(p.opts.LookPath)
		for _, name := range p.names {
			if t, ok := p.wrapped[name]; ok {
				p.backends = append(p.backends, wrappedBackend(name, p.opts.Aliases[name], look))
				p.tools = append(p.tools, t)
				continue
			}
			b, path, k := p.backend(name, look)
			p.backends = append(p.backends, b)
			if path == "" {
				continue
			}
			run := runner{path: path, timeout: p.opts.Timeout}
			switch {
			case k == kindRipgrep && name == tools.GrepSearch.Name:
				p.tools = append(p.tools, tools.NewGrepSearch(ripgrep{run}.grep))
			case k == kindRipgrep && name == tools.SearchCode.Name:
				p.tools = append(p.tools, tools.NewSearchCode(ripgrep{run}.grep))
			case k == kindFd:
				p.tools = append(p.tools, tools.NewGlobSearch(fd{run}.glob))
			}
		}
	})
}

// wrappedBackend says where the program of the tool name is now (the tool
// looks it up again when it runs).
func wrappedBackend(name, program string, look func(string) (string, error)) Backend {
	b := Backend{Tool: name, Program: program, Wraps: true}
	if found, err := look(program); err == nil {
		b.Path = found
	} else {
		b.Note = fmt.Sprintf("%s is not installed now; calls fail until it is", program)
	}
	return b
}

// Err reports the aliases that define nothing: a name no tool may have, a
// program that is not one word.
func (p *Provider) Err() error { return errors.Join(p.errs...) }

// backend resolves the program for one tool with look.
func (p *Provider) backend(name string, look func(string) (string, error)) (b Backend, path string, k kind) {
	prog, configured := p.opts.Aliases[name]
	if !configured {
		prog = defaults[name]
	}
	b = Backend{Tool: name, Program: prog}
	want, known := accepts[name]
	switch {
	case !known && name == tools.ReadFile.Name:
		b.Note = "deliberately unsupported: syntax highlighting and decorations are noise to a model; " +
			"the builtin read_file serves it (numbered lines, images as images)"
		return b, "", kindNone
	case !known:
		b.Note = fmt.Sprintf("the cli provider serves only %s; the builtin provider serves %s",
			strings.Join(sortedKeys(accepts), ", "), name)
		return b, "", kindNone
	case prog == "" || prog == "builtin":
		b.Note = "left to the builtin provider by configuration"
		return b, "", kindNone
	}
	k = kindOf(prog)
	if k != want {
		b.Note = fmt.Sprintf("served by the builtin engine: %s cannot be made to search exactly what the engine searches "+
			"(the workspace's ignore files, its confinement, Go's regular expressions); for a faster backend use %s",
			prog, programNames(want))
		return b, "", kindNone
	}
	for _, candidate := range candidates(prog) {
		if found, err := look(candidate); err == nil {
			b.Path = found
			return b, found, k
		}
	}
	b.Note = fmt.Sprintf("%s is not installed; the builtin engine serves %s", prog, name)
	return b, "", kindNone
}

// lookOnce returns lookPath asking once per program: grep_search and
// search_code both want rg, and a program that is missing costs a stat
// per PATH entry.
func lookOnce(lookPath func(string) (string, error)) func(string) (string, error) {
	type answer struct {
		path string
		err  error
	}
	seen := map[string]answer{}
	return func(prog string) (string, error) {
		a, ok := seen[prog]
		if !ok {
			a.path, a.err = lookPath(prog)
			seen[prog] = a
		}
		return a.path, a.err
	}
}

// kindOf tells the program family from its name or path.
func kindOf(prog string) kind {
	switch strings.TrimSuffix(filepath.Base(prog), ".exe") {
	case "rg", "ripgrep":
		return kindRipgrep
	case "fd", "fdfind", "fd-find":
		return kindFd
	}
	return kindNone
}

// candidates are the names to look a program up by: fd is fdfind on Debian
// and Ubuntu.
func candidates(prog string) []string {
	switch prog {
	case "fd", "fd-find":
		return []string{"fd", "fdfind"}
	case "ripgrep":
		return []string{"rg"}
	}
	return []string{prog}
}

func programNames(k kind) string {
	if k == kindFd {
		return "fd (fdfind)"
	}
	return "rg (ripgrep)"
}

func sortedKeys(m map[string]kind) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ID returns "cli".
func (p *Provider) ID() string { return ID }

// Priority returns provider.PriorityCLI: above builtin.
func (p *Provider) Priority() int { return provider.PriorityCLI }

// errNoPrograms is the provider's state when no program was found.
var errNoPrograms = errors.New("no supported program found (rg for grep_search and search_code, fd or fdfind for glob_search); the builtin engine serves these tools")

// Tools returns the tools whose program was found. With none, the provider
// reports itself unavailable, saying why.
func (p *Provider) Tools(context.Context) ([]*tool.Tool, error) {
	p.detect()
	if len(p.tools) == 0 {
		return nil, errNoPrograms
	}
	return p.tools, nil
}

// Backends reports, for each tool the provider knows, which program backs
// it or why none does.
func (p *Provider) Backends() []Backend {
	p.detect()
	return append([]Backend(nil), p.backends...)
}

// Suggestions names the programs worth installing, when SuggestEnhanced is
// set and some are missing.
func (p *Provider) Suggestions() []string {
	if !p.opts.SuggestEnhanced {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, b := range p.Backends() {
		if b.Path != "" || !strings.Contains(b.Note, "not installed") || seen[b.Program] {
			continue
		}
		seen[b.Program] = true
		switch kindOf(b.Program) {
		case kindRipgrep:
			out = append(out, "install ripgrep (rg) to back grep_search and search_code: apt install ripgrep, brew install ripgrep")
		case kindFd:
			out = append(out, "install fd to back glob_search: apt install fd-find, brew install fd")
		}
	}
	return out
}
