//go:build linux

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/quiverkit/quiver/internal/redistest"
)

// TestServeReplicasKeepPlansPerSessionInRedis: two quiver serve --http
// replicas on one redis-server keep write_todos's plan per MCP session, in
// Redis: two sessions on one replica and one on the other each number
// their own steps, each plan is under its session's key in Redis, and a
// session's plan is deleted when the session ends.
func TestServeReplicasKeepPlansPerSessionInRedis(t *testing.T) {
	srv := redistest.Start(t, false)
	env := []string{"QUIVER_OUTPUT_STORE=" + srv.URL(), "QUIVER_SANDBOX_DISABLED=true"}
	a := startServeEnv(t, workdir(t, nil), env, "--shutdown-grace", "1s")
	b := startServeEnv(t, workdir(t, nil), env, "--shutdown-grace", "1s")
	a1, a2, b1 := connectSDK(t, a.url, &http.Client{}), connectSDK(t, a.url, &http.Client{}), connectSDK(t, b.url, &http.Client{})
	defer a2.Close()
	defer b1.Close()

	item := func(content, status string) map[string]any {
		return map[string]any{"content": content, "activeForm": content + "ing", "status": status}
	}
	for _, s := range []struct {
		cs    *mcp.ClientSession
		items []map[string]any
		want  []string
	}{
		{a1, []map[string]any{item("Read", "in_progress"), item("Test", "pending")}, []string{"step-1", "step-2"}},
		{a2, []map[string]any{item("Build", "in_progress")}, []string{"step-1"}},
		{b1, []map[string]any{item("Ship", "pending")}, []string{"step-1"}},
		{a1, []map[string]any{item("Read", "completed"), item("Fix", "in_progress"), item("Test", "pending")}, []string{"step-1", "step-3", "step-2"}},
		{a2, []map[string]any{item("Build", "completed"), item("Ship", "pending")}, []string{"step-1", "step-2"}},
	} {
		code, out := callCode(t, s.cs, "write_todos", map[string]any{"items": s.items})
		if code != "" {
			t.Fatalf("write_todos in session %s: %s %v", s.cs.ID(), code, out)
		}
		var ids []string
		items, _ := out["items"].([]any)
		for _, it := range items {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		if diff := cmp.Diff(s.want, ids); diff != "" {
			t.Errorf("session %s: ids (-want +got):\n%s", s.cs.ID(), diff)
		}
	}

	opts, err := redis.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	ctx := context.Background()
	key := func(cs *mcp.ClientSession) string { return "quiver:todos:mcp:" + cs.ID() }
	for cs, want := range map[*mcp.ClientSession][]string{a1: {"Read", "Fix", "Test"}, a2: {"Build", "Ship"}, b1: {"Ship"}} {
		raw, err := rdb.Get(ctx, key(cs)).Bytes()
		if err != nil {
			t.Fatalf("the plan of session %s in Redis: %v", cs.ID(), err)
		}
		var plan struct{ Items []struct{ Content string } }
		if err := json.Unmarshal(raw, &plan); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range plan.Items {
			got = append(got, it.Content)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("session %s's plan in Redis (-want +got):\n%s", cs.ID(), diff)
		}
		if ttl := rdb.TTL(ctx, key(cs)).Val(); ttl <= 0 {
			t.Errorf("session %s's plan has no expiry (TTL %v)", cs.ID(), ttl)
		}
	}

	// Ending a session (the client's DELETE) deletes its plan, and only its.
	if err := a1.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute) // a hang guard: the DELETE ends the session at once
	for rdb.Exists(ctx, key(a1)).Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the plan of session %s is still in Redis a minute after the session ended", a1.ID())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := rdb.Exists(ctx, key(a2), key(b1)).Val(); n != 2 {
		t.Errorf("ending one session left %d of the other two sessions' plans, want 2", n)
	}
}
