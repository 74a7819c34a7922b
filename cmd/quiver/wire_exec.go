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
// toolkit's one command classifier, the built-in list widened by
// low_risk_commands: exec_command's rating and the run-time check of every
// command both read it.
func (a *app) wireExec(cfg *config.Config) ([]quiver.Option, error) {
	c := cfg.Exec
	exec := tools.ExecConfig{
		DefaultTimeout: time.Duration(c.DefaultTimeoutSecs) * time.Second,
		MaxTimeout:     time.Duration(c.MaxTimeoutSecs) * time.Second,
		EnvAllow:       c.EnvAllow,
	}
	return []quiver.Option{
		quiver.Override(tools.ExecConfigKey, func(context.Context) (tools.ExecConfig, error) { return exec, nil }),
		quiver.WithCommandClassifier(shell.Classifier(c.LowRiskCommands)),
	}, nil
}
