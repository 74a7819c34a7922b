package main

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/workspace"
	"github.com/quiverkit/quiver/workspace/github"
	"github.com/quiverkit/quiver/workspace/gitref"
)

// openBackend opens the backend [workspace] backend names, or returns nil
// for the local directory. The git backend reads the repository at root
// (the current directory when root is ""); its git runs read-only under the
// operator's [sandbox] settings.
func openBackend(cfg *config.Config, root string) (workspace.Backend, error) {
	switch cfg.Workspace.BackendName() {
	case config.BackendGit:
		if root == "" {
			wd, err := os.Getwd()
			if err != nil {
				return nil, fmt.Errorf("[workspace] backend = \"git\": %w", err)
			}
			root = wd
		}
		box, err := sandbox.New(sandbox.ReadOnly, root, cfg.Sandbox, sandbox.StandardProtected)
		if err != nil {
			return nil, fmt.Errorf("[workspace] backend = \"git\": %w", err)
		}
		b, err := gitref.Open(context.Background(), root, cfg.Workspace.Ref, box)
		if err != nil {
			return nil, fmt.Errorf("[workspace] ref %q: %w", cfg.Workspace.Ref, err)
		}
		return b, nil
	case config.BackendGitHub:
		// The token is read from the variable token_env names; without
		// one, every call answers NO_CONNECTION.
		w := cfg.Workspace
		b, err := github.Open(github.Config{Repo: w.Repo, Ref: w.Ref, APIURL: w.APIURL, Token: os.Getenv(cmp.Or(w.TokenEnv, config.DefaultTokenEnv))})
		if err != nil {
			return nil, fmt.Errorf("[workspace] backend = \"github\": %w", err)
		}
		return b, nil
	}
	return nil, nil
}
