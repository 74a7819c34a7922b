package redisstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/redistest"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/outputcache/redisstore"
	"github.com/quiverkit/quiver/tools"
)

func todo(content, status string) tools.TodoInput {
	return tools.TodoInput{Content: content, ActiveForm: content + "ing", Status: status}
}

// TestPlansPerSessionSharedByReplicas: a session's plan written through one
// store (replica) is continued through another, ids kept; another session's
// plan is its own; ending a session deletes its plan; with Redis down a
// write fails with ErrUnavailable.
func TestPlansPerSessionSharedByReplicas(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t, false)
	a := newStore(t, srv, redisstore.Options{}).Plans()
	b := newStore(t, srv, redisstore.Options{}).Plans()
	var _ tools.PlanStore = a

	steps := []struct {
		plans   *redisstore.Plans
		session string
		items   []tools.TodoInput
		want    []string
	}{
		{a, "s1", []tools.TodoInput{todo("Read", "in_progress"), todo("Test", "pending")}, []string{"step-1", "step-2"}},
		{b, "s2", []tools.TodoInput{todo("Build", "pending")}, []string{"step-1"}},
		{b, "s1", []tools.TodoInput{todo("Read", "completed"), todo("Fix", "in_progress"), todo("Test", "pending")}, []string{"step-1", "step-3", "step-2"}},
		{a, "s2", []tools.TodoInput{todo("Build", "completed"), todo("Ship", "pending")}, []string{"step-1", "step-2"}},
	}
	for i, s := range steps {
		items, err := s.plans.Replace(ctx, s.session, s.items)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		var ids []string
		for _, it := range items {
			ids = append(ids, it.ID)
		}
		if diff := cmp.Diff(s.want, ids); diff != "" {
			t.Errorf("step %d, session %s: ids (-want +got):\n%s", i, s.session, diff)
		}
	}

	if err := a.CloseSession("s1"); err != nil {
		t.Fatal(err)
	}
	items, err := b.Replace(ctx, "s1", []tools.TodoInput{todo("Read", "pending")})
	if err != nil || len(items) != 1 || items[0].ID != "step-1" {
		t.Errorf("after the session ended, a plan starts afresh: %+v, %v", items, err)
	}

	srv.Kill()
	if _, err := a.Replace(ctx, "s2", []tools.TodoInput{todo("Ship", "in_progress")}); !errors.Is(err, outputcache.ErrUnavailable) {
		t.Errorf("writing a plan with Redis down: %v, want ErrUnavailable", err)
	}
}
