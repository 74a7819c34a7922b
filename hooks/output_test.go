package hooks_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/hooks"
)

func TestParseOutput(t *testing.T) {
	no := false
	cases := []struct {
		name   string
		event  hooks.Event
		stdout string
		want   *hooks.Output
		err    string
	}{
		{name: "empty", event: hooks.PreToolUse, stdout: "  \n"},
		{name: "plain text decides nothing", event: hooks.PreToolUse, stdout: "formatted 3 files\n"},
		{name: "BOM", event: hooks.PostToolUse, stdout: "\ufeff{\"decision\":\"block\",\"reason\":\"r\"}", want: &hooks.Output{Decision: "block", Reason: "r"}},
		{name: "pre deny", event: hooks.PreToolUse,
			stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
			want:   &hooks.Output{Specific: &hooks.Specific{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: "no"}}},
		{name: "pre rewrite", event: hooks.PreToolUse,
			stdout: `{"hookSpecificOutput":{"updatedInput":{"command":"ls"},"additionalContext":"c"},"unknownField":1}`,
			want:   &hooks.Output{Specific: &hooks.Specific{UpdatedInput: map[string]any{"command": "ls"}, AdditionalContext: "c"}}},
		{name: "continue false", event: hooks.PostToolUse, stdout: `{"continue":false,"stopReason":"stop","systemMessage":"m"}`,
			want: &hooks.Output{Continue: &no, StopReason: "stop", SystemMessage: "m"}},
		{name: "truncated", event: hooks.PreToolUse, stdout: `{"hookSpecificOutput": {"permissionDecision": "deny"`, err: "not the JSON Claude Code hooks print"},
		{name: "two values", event: hooks.PreToolUse, stdout: `{} {}`, err: "more than one JSON value"},
		{name: "wrong type", event: hooks.PreToolUse, stdout: `{"continue":"yes"}`, err: "not the JSON"},
		{name: "updatedInput not an object", event: hooks.PreToolUse, stdout: `{"hookSpecificOutput":{"updatedInput":"rm -rf /"}}`, err: "not the JSON"},
		{name: "unknown permission", event: hooks.PreToolUse, stdout: `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, err: `permissionDecision: "maybe"`},
		{name: "other event's output", event: hooks.PreToolUse, stdout: `{"hookSpecificOutput":{"hookEventName":"PostToolUse"}}`, err: "in a PreToolUse hook"},
		{name: "post permission", event: hooks.PostToolUse, stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"}}`, err: "PreToolUse's, not PostToolUse's"},
		{name: "post approve", event: hooks.PostToolUse, stdout: `{"decision":"approve"}`, err: "want block or none"},
		{name: "pre unknown decision", event: hooks.PreToolUse, stdout: `{"decision":"allow"}`, err: "want approve or block"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := hooks.ParseOutput(tc.event, []byte(tc.stdout))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
