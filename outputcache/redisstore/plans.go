package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/quiverkit/quiver/tools"
)

// Plans keeps write_todos's plan of each session under PREFIX todos:SESSION,
// as JSON, so that what a replica keeps of a session is in the Redis the
// replicas share beside the outputs. A plan expires MaxAge after its last
// change and is deleted when its session ends. It is the store's
// [tools.PlanStore]: quiver serve sets it as tools.PlansKey when the outputs
// are in Redis.
type Plans struct{ s *Store }

// Plans returns the plan store over the store's Redis.
func (s *Store) Plans() *Plans { return &Plans{s: s} }

// planTries bounds how often Replace retries when another writer changed
// the session's plan between its read and its write (two calls of one
// session at once).
const planTries = 10

func (p *Plans) key(session string) string { return p.s.opts.Prefix + "todos:" + session }

// Replace sets session's plan to what tools.NextPlan makes of the stored one
// and items, in one optimistic transaction (WATCH, MULTI).
func (p *Plans) Replace(ctx context.Context, session string, items []tools.TodoInput) ([]tools.PlanItem, error) {
	key := p.key(session)
	var next tools.PlanState
	var corrupt error
	update := func(tx *redis.Tx) error {
		var prev tools.PlanState
		raw, err := tx.Get(ctx, key).Bytes()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if err == nil {
			if err := json.Unmarshal(raw, &prev); err != nil {
				corrupt = fmt.Errorf("redisstore: the plan under %s: %w", key, err)
				return corrupt
			}
		}
		next = tools.NextPlan(prev, items)
		b, err := json.Marshal(next)
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Set(ctx, key, b, p.s.opts.MaxAge)
			return nil
		})
		return err
	}
	for range planTries {
		err := p.s.rdb.Watch(ctx, update, key)
		switch {
		case errors.Is(err, redis.TxFailedErr):
			continue
		case corrupt != nil:
			return nil, corrupt
		case err != nil:
			return nil, p.s.unavailable("plan write", err)
		}
		return next.Items, nil
	}
	return nil, fmt.Errorf("redisstore: the plan under %s changed %d times while it was written", key, planTries)
}

// CloseSession deletes session's plan; what a Redis that cannot be reached
// keeps expires.
func (p *Plans) CloseSession(session string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.s.rdb.Del(ctx, p.key(session)).Err(); err != nil {
		return p.s.unavailable("plan delete", err)
	}
	return nil
}
