package policy

import (
	"context"
	"testing"

	"github.com/quiverkit/quiver/tool"
)

// TestURLGate decides redirect hops as calls of their own would be decided,
// with what a person approved carried over only as far as they saw it.
func TestURLGate(t *testing.T) {
	allowed := Verdict{Decision: Allow, Rule: "default for low-risk tools"}
	tests := []struct {
		name     string
		cfg      Config
		verdict  Verdict
		approved bool
		url      string
		refused  bool
	}{
		{"a hop to a denied domain is refused",
			Config{Deny: []string{"web_fetch(domain:internal.example)"}}, allowed, false, "https://internal.example/x", true},
		{"so is a hop to its subdomain, in any case, with a trailing dot",
			Config{Deny: []string{"web_fetch(domain:internal.example)"}}, allowed, false, "https://API.Internal.Example./x", true},
		{"a hop elsewhere is followed",
			Config{Deny: []string{"web_fetch(domain:internal.example)"}}, allowed, false, "https://example.com/", false},
		{"a deny is final even after a person approved the call",
			Config{Deny: []string{"web_fetch(domain:internal.example)"}, Tools: map[string]Decision{"web_fetch": Ask}},
			Verdict{Decision: Ask, Rule: "tools.web_fetch = ask"}, true, "https://internal.example/", true},
		{"under default deny, only the allowed domain is followed",
			Config{Default: Deny, Allow: []string{"web_fetch(domain:docs.example)"}},
			Verdict{Decision: Allow, Rule: "allow: web_fetch(domain:docs.example)", BySpecifier: true}, false, "https://evil.example/", true},
		{"and the allowed domain is",
			Config{Default: Deny, Allow: []string{"web_fetch(domain:docs.example)"}},
			Verdict{Decision: Allow, Rule: "allow: web_fetch(domain:docs.example)", BySpecifier: true}, false, "https://www.docs.example/", false},
		{"a hop an ask rule names is refused when nobody was asked",
			Config{Default: Allow, Ask: []string{"web_fetch(domain:pay.example)"}}, allowed, false, "https://pay.example/", true},
		{"or when a person was asked about something else",
			Config{Default: Allow, Ask: []string{"web_fetch(domain:pay.example)", "web_fetch(domain:a.example)"}},
			Verdict{Decision: Ask, Rule: "ask: web_fetch(domain:a.example)"}, true, "https://pay.example/", true},
		{"a hop the approved rule covers is followed",
			Config{Default: Allow, Ask: []string{"web_fetch(domain:pay.example)"}},
			Verdict{Decision: Ask, Rule: "ask: web_fetch(domain:pay.example)"}, true, "https://www.pay.example/", false},
		{"an ask that was not approved covers nothing",
			Config{Tools: map[string]Decision{"web_fetch": Ask}},
			Verdict{Decision: Ask, Rule: "tools.web_fetch = ask"}, false, "https://example.com/", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.cfg, WorkspaceWrite)
			if err != nil {
				t.Fatal(err)
			}
			err = p.URLGate(webFetch, tool.RiskLow, tt.verdict, tt.approved).CheckURL(context.Background(), tt.url)
			if !tt.refused {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if tool.CodeOf(err) != tool.CodeToolNotAllowed {
				t.Fatalf("error %v, want TOOL_NOT_ALLOWED", err)
			}
			if te := tool.AsError(err); te.Details["url"] != tt.url {
				t.Errorf("details name %v, want the URL %s", te.Details["url"], tt.url)
			}
		})
	}
}
