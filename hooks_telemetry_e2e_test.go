package quiver_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/telemetry/telemetrytest"
)

// TestHookSpans: each hook that runs is a span under its call's
// execute_tool span, named for its event and hook, with its name, event,
// decision, exit status, rewrite and duration as quiver.hook.* attributes;
// a hook that failed has an error status and says why.
func TestHookSpans(t *testing.T) {
	rec := telemetrytest.New(t, false)
	deny := hooks.Hook{Name: "guard", Command: hookScript(t, "deny_rm.sh"), Matcher: hookMatcher(t, "exec_command")}
	broken := hooks.Hook{Name: "broken", Command: hookScript(t, "exit1.sh")}
	rewrite := hooks.Hook{Name: "rewrite", Command: hookScript(t, "rewrite.py"), Matcher: hookMatcher(t, "exec_command")}
	post := hooks.Hook{Name: "after", Command: hookScript(t, "empty.sh")}
	h := newHooked(t, allowExec, hooks.Config{PreToolUse: []hooks.Hook{deny, broken, rewrite}, PostToolUse: []hooks.Hook{post}},
		quiver.WithTelemetry(rec.Telemetry))
	ctx := context.Background()
	h.tk.Invoke(ctx, "exec_command", `{"command": "rm -rf x"}`)
	if _, err := h.tk.Invoke(ctx, "exec_command", `{"command": "echo hello"}`); err != nil {
		t.Fatal(err)
	}

	calls := rec.Named("execute_tool exec_command")
	if len(calls) != 2 {
		t.Fatalf("%d execute_tool spans, want 2", len(calls))
	}
	type row struct {
		Call  int
		Name  string
		Attrs map[string]string
	}
	var got []row
	for _, s := range rec.Spans() {
		if s.Parent.SpanID() == calls[0].SpanContext.SpanID() || s.Parent.SpanID() == calls[1].SpanContext.SpanID() {
			a := telemetrytest.Attrs(s)
			if a["quiver.hook.duration_ms"] == "" || a["quiver.hook.duration_ms"] == "0" {
				t.Errorf("%s: no duration: %v", s.Name, a)
			}
			delete(a, "quiver.hook.duration_ms")
			call := 1
			if s.Parent.SpanID() == calls[1].SpanContext.SpanID() {
				call = 2
			}
			if s.Status.Code.String() == "Error" {
				a["status"] = "error"
			}
			got = append(got, row{call, s.Name, a})
		}
	}
	hook := func(name, event, decision, exit string, more ...string) map[string]string {
		m := map[string]string{"quiver.hook.name": name, "quiver.hook.event": event, "quiver.hook.decision": decision}
		if exit != "" {
			m["quiver.hook.exit_code"] = exit
		}
		for i := 0; i+1 < len(more); i += 2 {
			m[more[i]] = more[i+1]
		}
		return m
	}
	want := []row{
		{1, "hook PreToolUse guard", hook("guard", "PreToolUse", "deny", "2")},
		{2, "hook PreToolUse guard", hook("guard", "PreToolUse", "none", "0")},
		{2, "hook PreToolUse broken", hook("broken", "PreToolUse", "none", "1",
			"quiver.hook.error", "exited with status 1: exit1.sh: something broke", "status", "error")},
		{2, "hook PreToolUse rewrite", hook("rewrite", "PreToolUse", "none", "0", "quiver.hook.rewrote", "true")},
		{2, "hook PostToolUse after", hook("after", "PostToolUse", "none", "0")},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("hook spans (-want +got):\n%s", d)
	}
}
