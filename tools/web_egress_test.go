package tools_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// TestDataDoesNotLeaveUnasked is issue 34's "a web_fetch that carries data
// to a host that is not allowed, under the default policy": the loopback
// server is reached as 127.0.0.1, which [sandbox] network lists, and as
// localhost, which it does not. Nothing is sent to localhost unasked, and
// the audit record's rule says why.
func TestDataDoesNotLeaveUnasked(t *testing.T) {
	srv := newRedirectServer(t)
	unlisted := "http://localhost" + srv.port
	const why = "the call sends data to localhost, not listed in [sandbox] network"
	tests := []struct {
		name     string
		approver policy.Approver
		tool     string
		args     map[string]any
		search   string // [web] search_url, for web_search
		code     tool.Code
		hint     string // in the error, or in the output
		never    string // a path the server must not have served
		rule     string // in the audit record
	}{
		{"a fetch carrying a secret to an unlisted host is not sent", approve.Deny, "web_fetch",
			map[string]any{"url": unlisted + "/collect?token=s3cret"}, "", tool.CodeApprovalDenied,
			`allow it with the rule "web_fetch(domain:localhost)"`, "/collect", why},
		{"an MCP client without elicitation is refused, naming the setting", approve.Elicit{}, "web_fetch",
			map[string]any{"url": unlisted + "/mcp?token=s3cret"}, "", tool.CodeApprovalDenied,
			"not listed in [sandbox] network (list it there to allow it unasked)", "/mcp", why},
		{"a fetch to a listed host is sent unasked", approve.Deny, "web_fetch",
			map[string]any{"url": srv.URL + "/docs?q=x"}, "", "", "served /docs", "", "default for low-risk tools"},
		{"a person may approve the fetch", approve.Auto, "web_fetch",
			map[string]any{"url": unlisted + "/approved"}, "", "", "served /approved", "", why},
		{"a listed host that redirects to an unlisted one: the hop is refused", approve.Deny, "web_fetch",
			map[string]any{"url": srv.via(unlisted + "/leak?token=s3cret")}, "", tool.CodeToolNotAllowed,
			"nobody was asked about it", "/leak", "default for low-risk tools"},
		{"an approved host that redirects to another unlisted one: refused", approve.Auto, "web_fetch",
			map[string]any{"url": "http://LocalHost" + srv.port + "/to?u=" + strings.ReplaceAll("http://127.0.0.2"+srv.port+"/leak2", ":", "%3A")}, "",
			tool.CodeToolNotAllowed, "127.0.0.2", "/leak2", why},
		{"web_search: the engine's host is where the query goes", approve.Deny, "web_search",
			map[string]any{"query": "s3cret"}, unlisted + "/search", tool.CodeApprovalDenied,
			"web_search(domain:localhost)", "/search", why},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := &audit.Memory{}
			pol, err := policy.New(policy.Config{}, sandbox.WorkspaceWrite) // the default policy
			if err != nil {
				t.Fatal(err)
			}
			web := tools.WebConfig{AllowPrivate: true, SearchURL: tt.search}
			tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithPolicy(pol),
				quiver.WithApprover(tt.approver), quiver.WithAudit(sink),
				quiver.WithSandbox(sandbox.Config{Network: sandbox.Network{Hosts: []string{"127.0.0.1"}}}),
				quiver.Override(tools.WebConfigKey, func(context.Context) (tools.WebConfig, error) { return web, nil }))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			out, err := tk.Invoke(context.Background(), tt.tool, tt.args)
			switch {
			case tt.code == "" && err != nil:
				t.Fatal(err)
			case tt.code == "" && !strings.Contains(out.Content.String(), tt.hint):
				t.Errorf("output does not say %q:\n%s", tt.hint, out.Content.String())
			case tt.code != "":
				wantCode(t, err, tt.code, tt.hint)
			}
			if tt.never != "" && srv.served(tt.never) {
				t.Errorf("the server was sent %s", tt.never)
			}
			recs := sink.Records()
			if len(recs) != 1 || !strings.Contains(recs[0].Rule, tt.rule) {
				t.Errorf("audit records %+v, want one whose rule says %q", recs, tt.rule)
			}
		})
	}
}

// TestAnyHostRestoresSeed002: [sandbox] network = true ("*") rates the
// web tools low-risk again, as seed 002 does.
func TestAnyHostRestoresSeed002(t *testing.T) {
	srv := newRedirectServer(t)
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(),
		quiver.WithSandbox(sandbox.Config{Network: sandbox.AnyHost}),
		quiver.Override(tools.WebConfigKey, func(context.Context) (tools.WebConfig, error) {
			return tools.WebConfig{AllowPrivate: true}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	url := fmt.Sprintf("http://localhost%s/anywhere", srv.port)
	if _, err := tk.Invoke(context.Background(), "web_fetch", map[string]any{"url": srv.via(url)}); err != nil {
		t.Fatal(err)
	}
	if !srv.served("/anywhere") {
		t.Error("the fetch was not sent")
	}
}
