package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/process"
	"github.com/quiverkit/quiver/sandbox"
)

// modelsEnv names the quiver-models program to start instead of the one
// beside quiver.
const modelsEnv = "QUIVER_MODELS"

// model returns the model s names. It runs in quiver-models, a program of
// its own (see package driver/process for why), started at the first
// request and ended with the run; here s is only checked, so that a wrong
// provider or a missing key is a usage error before anything starts.
func (a *app) model(cfg *config.Config, s driver.Spec) (driver.Model, error) {
	if err := s.Check(os.Getenv); err != nil {
		return nil, err
	}
	path, err := modelsProgram()
	if err != nil {
		return nil, err
	}
	box, err := a.processSandbox(cfg, a.workspaceDir(cfg), sandbox.AnyHost)
	if err != nil {
		return nil, err
	}
	if box.Confined() && box.With(sandbox.WorkspaceWrite).MayWrite(path) {
		// It holds the API keys and reaches the network: one the tools
		// could have written (beside a quiver built into the workspace),
		// under this scope or an earlier one, would be theirs to choose.
		return nil, fmt.Errorf("%s is where the tools may write (the workspace or a writable root): "+
			"install quiver-models outside it, or name another with %s", path, modelsEnv)
	}
	// It writes nothing: read-only whatever the write scope, with the
	// network it exists to reach; it holds the API keys, so it gets
	// Quiver's whole environment.
	c := process.Config{Path: path, Spec: s, Sandbox: box, Env: os.Environ()}
	if box.Confined() {
		c.Sandbox = box.With(sandbox.ReadOnly)
	}
	m := process.New(c)
	a.closer = append(a.closer, m)
	return m, nil
}

// modelsProgram finds quiver-models: QUIVER_MODELS, else beside the
// running executable. Never through PATH: a PATH entry inside the
// workspace would let the workspace choose the program that holds the API
// keys.
func modelsProgram() (string, error) {
	if p := os.Getenv(modelsEnv); p != "" {
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("%s=%q: want an absolute path", modelsEnv, p)
		}
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find quiver-models: %w", err)
	}
	p := filepath.Join(filepath.Dir(exe), "quiver-models")
	if _, err := exec.LookPath(p); err != nil {
		return "", fmt.Errorf("quiver-models, which talks to the models, is not installed beside quiver (%s): "+
			"install both from Quiver's clone with `go install ./cmd/quiver ./cmd/quiver-models`, "+
			"or name it with %s", filepath.Dir(exe), modelsEnv)
	}
	return p, nil
}
