package main

import (
	"context"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/tools"
)

// wireExec applies [exec]: timeouts, the environment passed on, and the
// extra commands counted as read-only at run time.
func (a *app) wireExec(cfg *config.Config) ([]quiver.Option, error) {
	c := cfg.Exec
	exec := tools.ExecConfig{
		DefaultTimeout: time.Duration(c.DefaultTimeoutSecs) * time.Second,
		MaxTimeout:     time.Duration(c.MaxTimeoutSecs) * time.Second,
		EnvAllow:       c.EnvAllow,
	}
	extra := c.LowRiskCommands
	return []quiver.Option{
		quiver.Override(tools.ExecConfigKey, func(context.Context) (tools.ExecConfig, error) { return exec, nil }),
		quiver.WithCommandClassifier(func(argv []string) bool { return shell.ReadOnlyArgv(argv, extra) }),
	}, nil
}
