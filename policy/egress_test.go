package policy

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// webSearchTool is a tool that names where it sends data through Reaches,
// as web_search does.
var webSearchTool = &tool.Tool{Name: "web_search", Risk: tool.RiskLow, Annotations: tool.Annotations{ReadOnly: true, OpenWorld: true},
	Reaches: func(_ context.Context, _ tool.Context, _ json.RawMessage) ([]tool.Subject, error) { return nil, nil }}

// webFetchTool names its URL as web_fetch does.
var webFetchTool = &tool.Tool{Name: "web_fetch", Risk: tool.RiskLow, Annotations: tool.Annotations{ReadOnly: true, OpenWorld: true},
	Subjects: func(json.RawMessage) ([]tool.Subject, error) { return nil, nil }}

// TestDataDoesNotLeaveUnasked: a low-risk call that sends data to a host
// [sandbox] network does not list is not passed by the low-risk default;
// it gets the default, and the rule says which host and which setting.
func TestDataDoesNotLeaveUnasked(t *testing.T) {
	const askRule = "default = ask: the call sends data to attacker.example, not listed in [sandbox] network (list it there to allow it unasked)"
	cases := []struct {
		name    string
		cfg     Config
		network []string
		url     string
		want    Verdict
	}{
		{"no list: a public host asks", Config{}, nil, "https://attacker.example/collect?token=s3cret",
			Verdict{Decision: Ask, Rule: askRule, Hosts: []string{"attacker.example"}}},
		{"a list that names other hosts asks", Config{}, []string{"docs.example", "*.golang.org"}, "https://attacker.example/c",
			Verdict{Decision: Ask, Rule: askRule, Hosts: []string{"attacker.example"}}},
		{"\"*\" restores seed 002: web tools are low-risk", Config{}, []string{"*"}, "https://attacker.example/c",
			Verdict{Decision: Allow, Rule: "default for low-risk tools", ByLowRisk: true}},
		{"a listed host is low-risk", Config{}, []string{"docs.example"}, "https://docs.example/x",
			Verdict{Decision: Allow, Rule: "default for low-risk tools", ByLowRisk: true}},
		{"but not its subdomains: a name lists itself alone", Config{}, []string{"docs.example"}, "https://api.docs.example/x",
			Verdict{Decision: Ask, Rule: "default = ask: the call sends data to api.docs.example, not listed in [sandbox] network (list it there to allow it unasked)", Hosts: []string{"api.docs.example"}}},
		{"*.host lists the subdomains only", Config{}, []string{"*.golang.org"}, "https://golang.org/x",
			Verdict{Decision: Ask, Rule: "default = ask: the call sends data to golang.org, not listed in [sandbox] network (list it there to allow it unasked)", Hosts: []string{"golang.org"}}},
		{"a host is matched in any spelling: case, trailing dot, userinfo", Config{}, []string{"docs.example"}, "https://x:y@DOCS.Example./p",
			Verdict{Decision: Allow, Rule: "default for low-risk tools", ByLowRisk: true}},
		{"userinfo does not pass a listed name off as the host", Config{}, []string{"docs.example"}, "https://docs.example@attacker.example/c",
			Verdict{Decision: Ask, Rule: askRule, Hosts: []string{"attacker.example"}}},
		{"nor does a listed name as a prefix", Config{}, []string{"docs.example"}, "https://docs.example.attacker.example/c",
			Verdict{Decision: Ask, Rule: "default = ask: the call sends data to docs.example.attacker.example, not listed in [sandbox] network (list it there to allow it unasked)", Hosts: []string{"docs.example.attacker.example"}}},
		{"an IDN host is listed in either form", Config{}, []string{"xn--bcher-kva.example"}, "https://BÜCHER.example/",
			Verdict{Decision: Allow, Rule: "default for low-risk tools", ByLowRisk: true}},
		{"the default decides an unlisted host: deny", Config{Default: Deny}, nil, "https://attacker.example/c",
			Verdict{Decision: Deny, Rule: "default = deny: the call sends data to attacker.example, not listed in [sandbox] network (list it there to allow it unasked)", Hosts: []string{"attacker.example"}}},
		{"an allow rule naming the domain still allows", Config{Allow: []string{"web_fetch(domain:attacker.example)"}}, nil, "https://attacker.example/c",
			Verdict{Decision: Allow, Rule: "allow: web_fetch(domain:attacker.example)", BySpecifier: true}},
		{"a deny rule still denies a listed host", Config{Deny: []string{"web_fetch(domain:docs.example)"}}, []string{"*"}, "https://docs.example/",
			Verdict{Decision: Deny, Rule: "deny: web_fetch(domain:docs.example)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(c.cfg, sandbox.WorkspaceWrite)
			if err != nil {
				t.Fatal(err)
			}
			p = p.WithNetwork(sandbox.Network{Hosts: c.network})
			got := p.Decide(webFetch, link(c.url), tool.RiskLow)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEgressOffer: a web tool whose calls may reach unlisted hosts is
// offered as allowed with some calls asked; with "*" it is plainly allowed.
func TestEgressOffer(t *testing.T) {
	p, err := New(Config{}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tool    *tool.Tool
		network []string
		want    string
	}{
		{webFetchTool, nil, "allow (some calls asked)"},
		{webSearchTool, []string{"docs.example"}, "allow (some calls asked)"},
		{webFetchTool, []string{"*"}, "allow"},
		{readFile, nil, "allow"},
	} {
		got := p.WithNetwork(sandbox.Network{Hosts: tt.network}).Offer(tt.tool).String()
		if got != tt.want {
			t.Errorf("Offer(%s) under network %q = %q, want %q", tt.tool.Name, tt.network, got, tt.want)
		}
	}
}
