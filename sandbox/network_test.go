package sandbox_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/netproxy"
)

// TestHostMatches: the policy's domain: rules, over every spelling of a
// host a URL may carry.
func TestHostMatches(t *testing.T) {
	for _, tt := range []struct {
		host, pattern string
		want          bool
	}{
		{"docs.example", "docs.example", true},
		{"api.docs.example", "docs.example", true},
		{"DOCS.Example.", "docs.example", true},
		{"docs.example", "DOCS.EXAMPLE.", true},
		{"xn--bcher-kva.example", "bücher.example", true},
		{"BÜCHER.example", "xn--bcher-kva.example", true},
		{"ｄｏｃｓ.example", "docs.example", true}, // full-width letters are looked up as ASCII
		{"docs.example.attacker.example", "docs.example", false},
		{"xdocs.example", "docs.example", false},
		{"docs.example", "*.docs.example", false},
		{"a.docs.example", "*.docs.example", true},
		{"anything.at.all", "*", true},
		{"127.0.0.1", "127.0.0.1", true},
		{"::ffff:127.0.0.1", "127.0.0.1", true},
		{"[::1]", "::1", true},
		{"", "docs.example", false},
		{"bad host", "bad host", false},
		{"127.1", "127.1", false}, // an old IPv4 form is no name
	} {
		if got := sandbox.HostMatches(tt.host, tt.pattern); got != tt.want {
			t.Errorf("HostMatches(%q, %q) = %v, want %v", tt.host, tt.pattern, got, tt.want)
		}
	}
}

// TestNetworkSetting: [sandbox] network is a boolean or a list of host
// patterns; true is "*", the only list that gives processes the network.
func TestNetworkSetting(t *testing.T) {
	for _, tt := range []struct {
		doc       string
		want      []string
		processes bool
		err       string
	}{
		{"network = false", nil, false, ""},
		{"network = true", []string{"*"}, true, ""},
		{`network = ["*"]`, []string{"*"}, true, ""},
		{`network = ["proxy.golang.org", "*.example.com", "bücher.example", "10.0.0.1"]`,
			[]string{"proxy.golang.org", "*.example.com", "bücher.example", "10.0.0.1"}, false, ""},
		{`network = "proxy.golang.org"`, nil, false, "want true, false or a list"},
		{`network = ["https://proxy.golang.org"]`, nil, false, "no scheme"},
		{`network = ["proxy.golang.org:443"]`, nil, false, "no scheme, port"},
		{`network = ["a.*.example"]`, nil, false, "other wildcard"},
		{`network = [1]`, nil, false, "not a host pattern"},
		{`network = [""]`, nil, false, "not a valid host name"},
	} {
		var cfg struct {
			Network sandbox.Network `toml:"network"`
		}
		err := toml.NewDecoder(strings.NewReader(tt.doc)).EnableUnmarshalerInterface().Decode(&cfg)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one saying %q", tt.doc, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.doc, err)
			continue
		}
		if diff := cmp.Diff(tt.want, cfg.Network.Hosts); diff != "" {
			t.Errorf("%s: hosts (-want +got):\n%s", tt.doc, diff)
		}
		p, err := sandbox.New(sandbox.WorkspaceWrite, t.TempDir(), sandbox.Config{Network: cfg.Network}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Network != tt.processes {
			t.Errorf("%s: processes get the network: %v, want %v (a list of names keeps them offline)", tt.doc, p.Network, tt.processes)
		}
	}
}

// FuzzHostMatches: matching never panics, a host always matches itself
// when it has a canonical form, and a pattern never matches a host that
// merely ends with it without a dot before.
func FuzzHostMatches(f *testing.F) {
	for _, s := range [][2]string{{"docs.example", "docs.example"}, {"BÜCHER.example.", "xn--bcher-kva.example"},
		{"xdocs.example", "docs.example"}, {"[::1]", "::1"}, {"a.b", "*.b"}, {"%61.example", "a.example"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, host, pattern string) {
		got := sandbox.HostMatches(host, pattern)
		if c, ok := netproxy.Canonical(host); ok && !sandbox.HostMatches(host, c) {
			t.Errorf("%q does not match its own canonical form %q", host, c)
		}
		if !got || pattern == "*" {
			return
		}
		h, _ := netproxy.Canonical(host)
		p, ok := netproxy.Canonical(strings.TrimPrefix(pattern, "*."))
		if !ok || (h != p && !strings.HasSuffix(h, "."+p)) {
			t.Errorf("HostMatches(%q, %q) = true, but %q is not %q or below it", host, pattern, h, p)
		}
	})
}
