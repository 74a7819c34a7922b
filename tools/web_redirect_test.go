package tools_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// redirectServer is a loopback server reached both as 127.0.0.1 and as
// localhost. /to?u=URL redirects to URL; every other path answers with its
// own path. It records the paths it served, so a test can show a refused
// hop was never requested.
type redirectServer struct {
	*httptest.Server
	port string // ":NNNN"
	mu   sync.Mutex
	seen []string
}

func newRedirectServer(t *testing.T) *redirectServer {
	s := &redirectServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Host+r.URL.Path)
		s.mu.Unlock()
		if r.URL.Path == "/to" {
			http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "served "+r.URL.Path)
	}))
	t.Cleanup(s.Close)
	s.port = s.URL[strings.LastIndex(s.URL, ":"):]
	return s
}

// via is a URL on 127.0.0.1 that redirects to target.
func (s *redirectServer) via(target string) string {
	return s.URL + "/to?u=" + strings.NewReplacer("%", "%25", "&", "%26", "?", "%3F", "#", "%23").Replace(target)
}

func (s *redirectServer) served(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.seen {
		if strings.HasSuffix(p, path) {
			return true
		}
	}
	return false
}

// webToolkit is a toolkit under cfg's policy whose web_fetch may reach
// loopback, as the red-team reproducer ran it.
func webToolkit(t *testing.T, cfg policy.Config, approver policy.Approver) *quiver.Toolkit {
	t.Helper()
	pol, err := policy.New(cfg, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	web := tools.WebConfig{AllowPrivate: true}
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approver),
		quiver.Override(tools.WebConfigKey, func(context.Context) (tools.WebConfig, error) { return web, nil }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

// TestWebFetchHoldsEveryRedirectToThePolicy is breach 11 of issue 18: a
// web_fetch(domain:X) deny held only for the first URL, and a redirect to X
// was followed. Every hop is now decided as a call of its own would be.
func TestWebFetchHoldsEveryRedirectToThePolicy(t *testing.T) {
	srv := newRedirectServer(t)
	local := "http://localhost" + srv.port
	denyLocal := policy.Config{Default: policy.Allow, Deny: []string{"web_fetch(domain:localhost)"}}
	tests := []struct {
		name     string
		cfg      policy.Config
		approver policy.Approver
		url      string
		code     tool.Code // "" for success
		hint     string
		never    string // a path the server must not have served
	}{
		{"a redirect to a denied domain is refused, naming the hop", denyLocal, approve.Deny,
			srv.via(local + "/secret"), tool.CodeToolNotAllowed,
			local + "/secret refused by policy (deny: web_fetch(domain:localhost))", "/secret"},
		{"the hop's host is matched in any case", denyLocal, approve.Deny,
			srv.via("http://LocalHost" + srv.port + "/upper"), tool.CodeToolNotAllowed, "refused by policy", "/upper"},
		{"a trailing dot does not hide the host", denyLocal, approve.Deny,
			srv.via("http://localhost." + srv.port + "/dot"), tool.CodeToolNotAllowed, "refused by policy", "/dot"},
		{"a percent-encoded host is not followed at all", denyLocal, approve.Deny,
			srv.via("http://%6cocalhost" + srv.port + "/pct"), tool.CodeExecutionFailed, "failed to parse Location header", "/pct"},
		{"nor a scheme-relative Location", denyLocal, approve.Deny,
			srv.via("//localhost" + srv.port + "/schemeless"), tool.CodeToolNotAllowed, "refused by policy", "/schemeless"},
		{"nor an upper-case scheme", denyLocal, approve.Deny,
			srv.via("HTTP://localhost" + srv.port + "/scheme"), tool.CodeToolNotAllowed, "refused by policy", "/scheme"},
		{"the third hop is checked as the first was", denyLocal, approve.Deny,
			srv.via(srv.via(local + "/deep")), tool.CodeToolNotAllowed, local + "/deep refused by policy", "/deep"},
		{"a redirect to an allowed host is followed", denyLocal, approve.Deny,
			srv.via(srv.URL + "/fine"), "", "served /fine", ""},
		{"a URL padded with spaces is judged as it is fetched", denyLocal, approve.Deny,
			"  " + local + "/padded", tool.CodeToolNotAllowed, "refused by policy", "/padded"},
		{"under default deny, a redirect off the allowed domain is refused",
			policy.Config{Default: policy.Deny, Allow: []string{"web_fetch(domain:127.0.0.1)"}}, approve.Deny,
			srv.via(local + "/elsewhere"), tool.CodeToolNotAllowed, "refused by policy (default = deny: the call sends data to localhost", "/elsewhere"},
		{"a hop an ask rule names was never shown to anybody",
			policy.Config{Default: policy.Allow, Ask: []string{"web_fetch(domain:localhost)"}}, approve.Auto,
			srv.via(local + "/asked"), tool.CodeToolNotAllowed, "nobody was asked about it", "/asked"},
		{"whoever approved a fetch under tools.web_fetch = ask approved where it leads",
			policy.Config{Default: policy.Allow, Tools: map[string]policy.Decision{"web_fetch": policy.Ask}}, approve.Auto,
			srv.via(local + "/approved"), "", "served /approved", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := webToolkit(t, tt.cfg, tt.approver)
			out, err := tk.Invoke(context.Background(), "web_fetch", map[string]any{"url": tt.url})
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if view := out.Content.String(); !strings.Contains(view, tt.hint) {
					t.Errorf("view does not say %q:\n%s", tt.hint, view)
				}
				return
			}
			wantCode(t, err, tt.code, tt.hint)
			if tt.never != "" && srv.served(tt.never) {
				t.Errorf("the refused hop %s was requested", tt.never)
			}
		})
	}
}
