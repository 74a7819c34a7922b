package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/outputcache/redisstore"
	"github.com/quiverkit/quiver/tools"
)

// wireOutput sets the output cache from [output] (the CLI's default store is
// the directory store, so that a later `quiver call tool_output_cache`
// reads a ref an earlier call made; a Redis URL shares one store between
// serve replicas, with write_todos's plans) and registers the [outputs.NAME]
// schemas for validate_output.
func (a *app) wireOutput(cfg *config.Config) ([]quiver.Option, error) {
	c := cfg.Output
	budget := outputcache.Budget{MaxBytes: c.MaxBytes, MaxLines: c.MaxLines, MaxLineLength: c.MaxLineLength}
	var store outputcache.Store
	switch {
	case c.RedisStore():
		rs, err := redisstore.New(redisstore.Options{URL: c.Store, MaxBytes: c.MaxTotalBytes,
			MaxAge: time.Duration(c.MaxAgeHours) * time.Hour})
		if err != nil {
			return nil, fmt.Errorf("[output]: %w", err)
		}
		a.redis = rs
		a.closer = append(a.closer, rs)
		store = rs
	case c.Store == "memory":
		store = outputcache.NewMemoryStore(outputcache.MemoryOptions{MaxBytes: c.MaxTotalBytes})
	default:
		ds, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: cfg.Resolve(c.Dir), MaxBytes: c.MaxTotalBytes,
			MaxAge: time.Duration(c.MaxAgeHours) * time.Hour})
		if err != nil {
			return nil, fmt.Errorf("[output]: %w", err)
		}
		store = ds
	}
	opts := []quiver.Option{quiver.WithOutputCache(store, budget)}
	if a.redis != nil {
		// what a replica keeps of a session goes where the outputs go
		plans := a.redis.Plans()
		opts = append(opts, quiver.Override(tools.PlansKey, func(context.Context) (tools.PlanStore, error) { return plans, nil }))
	}
	if len(cfg.Outputs) == 0 {
		return opts, nil
	}
	types := tools.NewOutputTypes()
	for _, name := range slices.Sorted(maps.Keys(cfg.Outputs)) {
		path := cfg.Resolve(cfg.Outputs[name].Schema)
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("[outputs.%s]: %w", name, err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("[outputs.%s]: %s: %w", name, path, err)
		}
		if err := types.Register(name, &s); err != nil {
			return nil, fmt.Errorf("[outputs.%s]: %s: %w", name, path, err)
		}
	}
	return append(opts, quiver.Override(tools.OutputTypesKey, func(ctx context.Context) (*tools.OutputTypes, error) { return types, nil })), nil
}
