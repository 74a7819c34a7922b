package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/outputcache/redisstore"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/cli"
	mcpprovider "github.com/quiverkit/quiver/provider/mcp"
	"github.com/quiverkit/quiver/provider/script"
	"github.com/quiverkit/quiver/sandbox"
)

// globalFlags are the flags every command shares.
type globalFlags struct {
	root, config, writeScope, audit string
	yes, json                       bool
}

// app is the state of one run of the command: flags, then the loaded
// configuration, the toolkit built from both, and the providers that
// toolkit was given, which `quiver tools`, `config check` and `serve` ask
// about after it is built. Everything a run makes hangs here, so that
// nothing outlives the run.
type app struct {
	flags  globalFlags
	cfg    *config.Config
	closer []io.Closer

	// mcpLog receives the MCP providers' logs; `quiver serve` sets it to
	// its log before building the toolkit, nil discards them.
	mcpLog *slog.Logger
	// The providers wired in: nil (empty) when their source is off.
	cli     *cli.Provider
	scripts *script.Provider
	mcp     []*mcpprovider.Provider
	// hookNotes are what `quiver tools` says about the hooks wired in.
	hookNotes []string
	// redis is the output store when [output] store is a Redis URL:
	// serve's /readyz pings it.
	redis *redisstore.Store
}

// loadConfig reads the configuration once. Errors are usage errors.
func (a *app) loadConfig() (*config.Config, error) {
	if a.cfg != nil {
		return a.cfg, nil
	}
	if a.flags.root != "" {
		if err := rootDir("--root", a.flags.root); err != nil {
			return nil, usageError(err)
		}
	}
	cfg, err := config.LoadLayers(config.LoadOptions{Explicit: a.flags.config, Dir: a.flags.root})
	if err != nil {
		return nil, usageError(err)
	}
	if line := trustNotice(cfg); line != "" {
		fmt.Fprintln(os.Stderr, line)
	}
	a.cfg = cfg
	return cfg, nil
}

// toolkit builds the toolkit from flags and configuration; extra options
// come last and win.
func (a *app) toolkit(extra ...quiver.Option) (*quiver.Toolkit, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	opts, err := a.toolkitOptions(cfg)
	if err != nil {
		return nil, usageError(err)
	}
	opts = append(opts, extra...)
	// Review wraps whichever approver the command chose, so it comes last.
	rev, err := a.reviewOption(cfg)
	if err != nil {
		return nil, usageError(err)
	}
	if rev != nil {
		opts = append(opts, rev)
	}
	tk, err := quiver.New(opts...)
	if err != nil {
		return nil, usageError(err)
	}
	a.closer = append(a.closer, tk)
	if err := a.checkToolRefs(context.Background(), cfg, tk.Registry()); err != nil {
		a.close()
		return nil, usageError(err)
	}
	return tk, nil
}

// toolkitOptions are the toolkit's options from the flags and the
// configuration: the base (policy, root, approver, audit), then each tool
// source and setting in turn. Where two options set the same thing the
// later wins; which provider serves a tool is its priority, not its place
// here.
func (a *app) toolkitOptions(cfg *config.Config) ([]quiver.Option, error) {
	var opts []quiver.Option
	for _, step := range []func(*config.Config) ([]quiver.Option, error){
		a.baseOptions,
		a.wireBuiltin,
		a.wireCLI,
		a.wireCustom,
		a.wireExec,
		a.wireMCP,
		a.wireOutput,
		a.wireWeb,
		a.wireHooks,
	} {
		more, err := step(cfg)
		if err != nil {
			return nil, err
		}
		opts = append(opts, more...)
	}
	return opts, nil
}

// writeScope is the --write-scope flag, else the configuration's scope.
func (a *app) writeScope(cfg *config.Config) (sandbox.WriteScope, error) {
	if a.flags.writeScope == "" {
		return cfg.Workspace.WriteScope.WriteScope, nil
	}
	s, err := sandbox.ParseWriteScope(a.flags.writeScope)
	if err != nil {
		return "", fmt.Errorf("--write-scope: %w", err)
	}
	return s, nil
}

// newPolicy returns the policy of cfg and the write scope: the toolkit's, and
// the source of every sandbox profile (see processSandbox).
func (a *app) newPolicy(cfg *config.Config) (*policy.Policy, error) {
	scope, err := a.writeScope(cfg)
	if err != nil {
		return nil, err
	}
	pc := cfg.PolicyConfig()
	files, err := configFiles(cfg)
	if err != nil {
		return nil, err
	}
	pc.ConfigFiles = append(pc.ConfigFiles, files...)
	hookFiles, err := cfg.HookProtected(a.workspaceRoot(cfg))
	if err != nil {
		return nil, err
	}
	pc.ConfigFiles = append(pc.ConfigFiles, hookFiles...)
	p, err := policy.New(pc, scope)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Path, err)
	}
	return p, nil
}

func (a *app) baseOptions(cfg *config.Config) ([]quiver.Option, error) {
	p, err := a.newPolicy(cfg)
	if err != nil {
		return nil, err
	}
	root := a.flags.root
	if root == "" && cfg.Workspace.Root != "" {
		root = cfg.Resolve(cfg.Workspace.Root)
		if err := rootDir(fmt.Sprintf("[workspace] root %q (in %s)", cfg.Workspace.Root, strings.Join(cfg.Files, " + ")), root); err != nil {
			return nil, err
		}
	}
	opts := []quiver.Option{quiver.WithPolicy(p), quiver.WithSandbox(cfg.Sandbox)}
	if root != "" {
		opts = append(opts, quiver.WithRoot(root))
	}
	backend, err := openBackend(cfg, root)
	if err != nil {
		return nil, err
	}
	if backend != nil {
		opts = append(opts, quiver.WithBackend(backend))
	}
	if a.flags.yes {
		opts = append(opts, quiver.WithApprover(approve.Auto))
	} else {
		opts = append(opts, quiver.WithApprover(approve.Prompt{In: os.Stdin, Out: os.Stderr}))
	}
	if a.flags.audit != "" {
		f, err := os.OpenFile(a.flags.audit, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("--audit: %w", err)
		}
		a.closer = append(a.closer, f)
		opts = append(opts, quiver.WithAudit(audit.NewJSONLines(f)), quiver.WithAuditRedact(cfg.Audit.Redact...))
	}
	return opts, nil
}

// workspaceRoot is the workspace the toolkit opens: --root, else [workspace]
// root, else the current directory.
func (a *app) workspaceRoot(cfg *config.Config) string {
	switch {
	case a.flags.root != "":
		return a.flags.root
	case cfg.Workspace.Root != "":
		return cfg.Resolve(cfg.Workspace.Root)
	}
	return "."
}

// configFiles are the files of every layer in force, absolute: each is
// protected wherever it is (a --config or the user's file outside the
// workspace included), since the workspace may be elsewhere than the
// current directory.
func configFiles(cfg *config.Config) ([]string, error) {
	var out []string
	for _, f := range cfg.Files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, abs)
	}
	return out, nil
}

// close releases what the run opened, toolkit first.
func (a *app) close() {
	for i := len(a.closer) - 1; i >= 0; i-- {
		a.closer[i].Close()
	}
	a.closer = nil
}

// rootDir checks that dir, the workspace root named by what, is a
// directory, and says so in a sentence: the error the workspace would give
// later names a system call.
func rootDir(what, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %s does not exist; the workspace root must be a directory", what, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", what, err)
	case !fi.IsDir():
		return fmt.Errorf("%s: %s is not a directory; the workspace root must be one", what, dir)
	}
	return nil
}
