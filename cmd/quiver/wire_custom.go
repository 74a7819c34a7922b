package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/provider/script"
)

// wireCustom adds the custom command templates ([[tools.custom]] or the
// spec's [tools.custom.NAME], one provider for both) and the scripts of
// [tools.scripts] dir (default .quiver/tools, relative to the workspace
// root) unless [tools] providers leaves scripts out. A template that cannot
// load is a configuration error, so `quiver config check` reports it with
// the tool's name.
func (a *app) wireCustom(cfg *config.Config) ([]quiver.Option, error) {
	var opts []quiver.Option
	if len(cfg.Tools.Custom) > 0 {
		p, err := cfg.CustomTools()
		var ce *config.Error
		switch {
		case errors.As(err, &ce): // each names its file, line and column
			return nil, err
		case err != nil:
			return nil, fmt.Errorf("%s: %w", cfg.Path, err)
		}
		opts = append(opts, quiver.WithProviderAt(p, priorityOf(cfg, config.KindCustom)))
	}
	if !cfg.Tools.ProviderOn(config.KindScript) {
		return opts, nil
	}
	dir := cfg.Tools.Scripts.Dir
	if dir == "" {
		dir = script.DefaultDir
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(a.workspaceDir(cfg), dir)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("tools.scripts.dir: %w", err)
	}
	pinned, run := scriptPins(cfg, dir, a.workspaceDir(cfg))
	if !run {
		return opts, nil
	}
	p := script.New(script.Options{Dir: dir, EnvAllow: cfg.Exec.EnvAllow, LowRisk: cfg.Tools.Scripts.LowRisk, Pinned: pinned})
	a.scripts = p
	return append(opts, quiver.WithProviderAt(p, priorityOf(cfg, config.KindScript))), nil
}

// scriptPins decides whether the scripts of dir run, and pinned to what.
// Scripts inside the project or the workspace are its files, code anyone
// who writes there chose: they run only when the operator trusted the
// project, each pinned to the digest trusted (a script added or changed
// since is skipped). A directory elsewhere is the operator's: unpinned.
func scriptPins(cfg *config.Config, dir, workspace string) (map[string]string, bool) {
	real := config.RealPath(dir)
	p := cfg.Project
	inProject := p != nil && config.Within(real, p.Dir)
	if !inProject && (workspace == "" || !config.Within(real, config.RealPath(workspace))) {
		return nil, true
	}
	if !inProject || cfg.ProjectState != config.Trusted {
		return nil, false
	}
	pinned := map[string]string{}
	for name, sum := range p.Files {
		if filepath.Join(p.Dir, filepath.Dir(name)) == real {
			pinned[filepath.Base(name)] = sum
		}
	}
	return pinned, true
}

// scriptNotes tells `quiver tools` which files of the scripts directory
// are not tools, and why.
func (a *app) scriptNotes() []string {
	p := a.scripts
	if p == nil {
		return nil
	}
	var lines []string
	for _, s := range p.Skipped() {
		lines = append(lines, "provider script skipped "+s)
	}
	return lines
}
