package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/quiverkit/quiver/hooks"
)

// HookConfig is the hooks in force: the [hooks] section's own, then those of
// the Claude Code settings file it names (claude_settings), which see
// Claude Code's tool names. A project's settings file is read as `quiver
// trust` hashed it (Project), never again; skipped are the settings file's
// events Quiver does not run.
func (c *Config) HookConfig() (cfg hooks.Config, skipped []string, err error) {
	cfg = c.Hooks
	path := c.claudeSettingsPath()
	if path == "" {
		return cfg, nil, nil
	}
	var data []byte
	if p := c.Project; p != nil && p.claudeFile != "" && filepath.Join(p.Dir, p.claudeFile) == path {
		data = p.claudeData
	} else if data, err = os.ReadFile(path); err != nil {
		return hooks.Config{}, nil, fmt.Errorf("hooks.claude_settings: %w", err)
	}
	claude, skipped, err := hooks.ParseClaudeSettings(path, data)
	if err != nil {
		return hooks.Config{}, nil, fmt.Errorf("hooks.claude_settings: %w", err)
	}
	cfg.PreToolUse = append(cfg.PreToolUse, claude.PreToolUse...)
	cfg.PostToolUse = append(cfg.PostToolUse, claude.PostToolUse...)
	cfg.PostToolUseFailure = append(cfg.PostToolUseFailure, claude.PostToolUseFailure...)
	return cfg, skipped, nil
}

// claudeSettingsPath is hooks.claude_settings, absolute ("" for none).
func (c *Config) claudeSettingsPath() string {
	p := expandHome(c.Hooks.ClaudeSettings)
	if p == "" {
		return ""
	}
	if p = c.Resolve(p); !filepath.IsAbs(p) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
	}
	return filepath.Clean(p)
}

// expandHome makes a leading ~/ the home directory, as Claude Code's own
// paths are written (~/.claude/settings.json).
func expandHome(p string) string {
	if !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[2:])
}

// hashClaudeSettings adds to the project's files the Claude Code settings
// file its configuration names, when that file is the project's own: its
// hooks are code the project brings, so `quiver trust` records its digest
// with the configuration's, and a byte changed untrusts the project. The
// bytes hashed are the bytes HookConfig parses.
func (p *Project) hashClaudeSettings(root *os.Root) error {
	var peek struct {
		Hooks struct {
			ClaudeSettings string `toml:"claude_settings"`
		} `toml:"hooks"`
	}
	if toml.Unmarshal(p.data, &peek) != nil { // Parse reports what is wrong
		return nil
	}
	name := filepath.Clean(filepath.FromSlash(peek.Hooks.ClaudeSettings))
	if peek.Hooks.ClaudeSettings == "" || !filepath.IsLocal(name) {
		return nil // none, or not the project's
	}
	data, err := root.ReadFile(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // HookConfig says it is missing
	case err != nil:
		p.Files[filepath.ToSlash(name)] = "" // unreadable through the root: never trusted
		return nil
	}
	sum := sha256.Sum256(data)
	p.Files[filepath.ToSlash(name)] = hex.EncodeToString(sum[:])
	p.claudeFile, p.claudeData = name, data
	return nil
}
