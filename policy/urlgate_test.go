package policy

import (
	"context"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// TestURLGate decides redirect hops as calls of their own would be decided,
// with what a person approved carried over only as far as they saw it.
func TestURLGate(t *testing.T) {
	allowed := Verdict{Decision: Allow, Rule: "default for low-risk tools"}
	tests := []struct {
		name     string
		cfg      Config
		network  []string // [sandbox] network; nil lists no host
		verdict  Verdict
		approved bool
		url      string
		refused  bool
	}{
		{"a hop to a denied domain is refused",
			Config{Deny: []string{"web_fetch(domain:internal.example)"}}, nil, allowed, false, "https://internal.example/x", true},
		{"so is a hop to its subdomain, in any case, with a trailing dot",
			Config{Deny: []string{"web_fetch(domain:internal.example)"}}, nil, allowed, false, "https://API.Internal.Example./x", true},
		{"a hop elsewhere is followed when [sandbox] network allows every host",
			Config{Deny: []string{"web_fetch(domain:internal.example)"}}, []string{"*"}, allowed, false, "https://example.com/", false},
		{"a hop to a host [sandbox] network does not list is refused: nobody was asked about sending there",
			Config{}, []string{"docs.example"}, allowed, false, "https://evil.example/?token=s3cret", true},
		{"a hop to a listed host is followed, in any spelling of it",
			Config{}, []string{"docs.example", "bücher.example"}, allowed, false, "https://user@Docs.Example./x", false},
		{"an IDN host is the same host in Unicode and in punycode",
			Config{}, []string{"bücher.example"}, allowed, false, "https://xn--bcher-kva.example/", false},
		{"a person who approved sending to a host approved the hops to that host",
			Config{}, nil, Verdict{Decision: Ask, Rule: "default = ask: the call sends data to evil.example", Hosts: []string{"evil.example"}},
			true, "https://Evil.Example/next", false},
		{"but not a hop to another unlisted host",
			Config{}, nil, Verdict{Decision: Ask, Rule: "default = ask: the call sends data to evil.example", Hosts: []string{"evil.example"}},
			true, "https://other.example/?token=s3cret", true},
		{"a deny is final even after a person approved the call",
			Config{Deny: []string{"web_fetch(domain:internal.example)"}, Tools: map[string]Decision{"web_fetch": Ask}}, nil,
			Verdict{Decision: Ask, Rule: "tools.web_fetch = ask"}, true, "https://internal.example/", true},
		{"under default deny, only the allowed domain is followed",
			Config{Default: Deny, Allow: []string{"web_fetch(domain:docs.example)"}}, nil,
			Verdict{Decision: Allow, Rule: "allow: web_fetch(domain:docs.example)", BySpecifier: true}, false, "https://evil.example/", true},
		{"and the allowed domain is",
			Config{Default: Deny, Allow: []string{"web_fetch(domain:docs.example)"}}, nil,
			Verdict{Decision: Allow, Rule: "allow: web_fetch(domain:docs.example)", BySpecifier: true}, false, "https://www.docs.example/", false},
		{"a hop an ask rule names is refused when nobody was asked",
			Config{Default: Allow, Ask: []string{"web_fetch(domain:pay.example)"}}, nil, allowed, false, "https://pay.example/", true},
		{"or when a person was asked about something else",
			Config{Default: Allow, Ask: []string{"web_fetch(domain:pay.example)", "web_fetch(domain:a.example)"}}, nil,
			Verdict{Decision: Ask, Rule: "ask: web_fetch(domain:a.example)"}, true, "https://pay.example/", true},
		{"a hop the approved rule covers is followed",
			Config{Default: Allow, Ask: []string{"web_fetch(domain:pay.example)"}}, nil,
			Verdict{Decision: Ask, Rule: "ask: web_fetch(domain:pay.example)"}, true, "https://www.pay.example/", false},
		{"an ask that was not approved covers nothing",
			Config{Tools: map[string]Decision{"web_fetch": Ask}}, nil,
			Verdict{Decision: Ask, Rule: "tools.web_fetch = ask"}, false, "https://example.com/", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.cfg, sandbox.WorkspaceWrite)
			if err != nil {
				t.Fatal(err)
			}
			p = p.WithNetwork(sandbox.Network{Hosts: tt.network})
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
