package main

import (
	"context"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/tools"
)

// wireWeb applies [web]: web_search's backend and whether web_fetch may
// reach private networks.
func (a *app) wireWeb(cfg *config.Config) ([]quiver.Option, error) {
	web := tools.WebConfig{SearchURL: cfg.Web.SearchURL, DuckDuckGoURL: cfg.Web.DuckDuckGoURL, AllowPrivate: cfg.Web.AllowPrivate}
	return []quiver.Option{
		quiver.Override(tools.WebConfigKey, func(context.Context) (tools.WebConfig, error) { return web, nil }),
	}, nil
}
