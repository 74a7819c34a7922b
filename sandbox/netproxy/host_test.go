package netproxy

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// TestAllows: exact names, wildcards for subdomains only, addresses for
// themselves, in every spelling of a host, and the spellings an attacker
// would try.
func TestAllows(t *testing.T) {
	list, err := NewAllowlist([]string{"proxy.golang.org", "*.example.com", "bücher.example", "10.1.2.3", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		host string
		how  string // "" for refused
	}{
		{"proxy.golang.org", ByName},
		{"PROXY.Golang.ORG.", ByName},
		{"ｐｒｏｘｙ.golang.org", ByName}, // full-width letters map to ASCII, as a resolver is asked
		{"sum.proxy.golang.org", ""}, // a name lists itself alone
		{"golang.org", ""},
		{"a.example.com", ByWildcard},
		{"a.b.EXAMPLE.com.", ByWildcard},
		{"example.com", ""}, // *.example.com: subdomains only
		{"example.com.evil.com", ""},
		{"evilexample.com", ""},
		{"evil.com#.example.com", ""},
		{"user@a.example.com", ""},
		{"a%2eexample.com", ""},
		{"a.example.com%00", ""},
		{"a..example.com", ""},
		{".example.com", ""},
		{"xn--bcher-kva.example", ByName},
		{"BÜCHER.example", ByName},
		{"10.1.2.3", ByName},
		{"::ffff:10.1.2.3", ByName},
		{"[::1]", ByName},
		{"::1%eth0", ""},
		{"10.1.2.4", ""},
		{"127.0.0.1", ""},
		{"127.1", ""},      // an old IPv4 form, no name
		{"2130706433", ""}, // 127.0.0.1 as one number
		{"0x7f.0.0.1", ""}, // and in hex
		{"a.example.0x10", ""},
		{"", ""},
		{"bad host.example.com", ""},
	} {
		how, ok := list.Allows(tt.host)
		if ok != (tt.how != "") || how != tt.how {
			t.Errorf("Allows(%q) = %q, %v; want %q", tt.host, how, ok, tt.how)
		}
	}
	star, _ := NewAllowlist([]string{"*"})
	if how, ok := star.Allows("127.0.0.1"); !ok || how != ByWildcard {
		t.Errorf(`"*" allows 127.0.0.1 as %q, %v; want a wildcard match (its address is checked when dialled)`, how, ok)
	}
	if !(Allowlist{}).Empty() || list.Empty() {
		t.Error("Empty: wrong")
	}
}

// TestCheckPattern: a pattern that could name no host is refused.
func TestCheckPattern(t *testing.T) {
	for _, p := range []string{"", "https://proxy.golang.org", "proxy.golang.org:443", "a.*.example", "*example.com",
		"*.127.0.0.1", "*.0.0.1", "proxy.golang.org/x", "user@host", "a#b", "a%2eb", "fe80::1%eth0", "127.1", "**.example.com"} {
		if err := CheckPattern(p); !errors.Is(err, ErrPattern) {
			t.Errorf("CheckPattern(%q) = %v, want ErrPattern", p, err)
		}
	}
	for _, p := range []string{"*", "proxy.golang.org", "*.example.com", "bücher.example", "10.0.0.1", "::1", "[::1]"} {
		if err := CheckPattern(p); err != nil {
			t.Errorf("CheckPattern(%q) = %v", p, err)
		}
	}
}

// TestSplitAuthority: host:port and nothing else.
func TestSplitAuthority(t *testing.T) {
	for _, tt := range []struct {
		in, def    string
		host, port string // "" host: an error
	}{
		{"example.com:443", "", "example.com", "443"},
		{"EXAMPLE.com.:443", "", "example.com", "443"},
		{"example.com", "80", "example.com", "80"},
		{"example.com", "", "", ""},
		{"[::1]:8080", "", "::1", "8080"},
		{"[::ffff:127.0.0.1]:80", "", "127.0.0.1", "80"},
		{"::1:80", "", "", ""},
		{"[example.com]:80", "", "", ""},
		{"[::1]x", "80", "", ""},
		{"user@example.com:443", "", "", ""},
		{"example.com:443/x", "", "", ""},
		{"example.com:0", "", "", ""},
		{"example.com:65536", "", "", ""},
		{"example.com:+443", "", "", ""},
		{"example.com:0443", "", "", ""},
		{"example.com:", "80", "", ""},
		{"a%2eb:80", "", "", ""},
		{"evil.com#.example.com:443", "", "", ""},
		{"a..b:80", "", "", ""},
		{"a.:80", "", "a", "80"},
		{"a..:80", "", "", ""},
		{":80", "", "", ""},
	} {
		h, p, err := SplitAuthority(tt.in, tt.def)
		if tt.host == "" {
			if err == nil {
				t.Errorf("SplitAuthority(%q) = %q, %q; want an error", tt.in, h, p)
			}
			continue
		}
		if err != nil || h != tt.host || p != tt.port {
			t.Errorf("SplitAuthority(%q) = %q, %q, %v; want %q, %q", tt.in, h, p, err, tt.host, tt.port)
		}
	}
}

// TestNonPublic: the ranges that reach this machine or its network.
func TestNonPublic(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback", "10.0.0.1": "private",
		"192.168.1.1": "private", "fd00::1": "private", "169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "100.64.0.1": "shared (carrier-grade NAT)", "239.1.1.1": "multicast",
		"0.1.2.3": "this-network", "64:ff9b::7f00:1": "loopback", "64:ff9b::808:808": "", "8.8.8.8": "", "2001:4860:4860::8888": "",
	} {
		if got := NonPublic(netip.MustParseAddr(addr)); got != want {
			t.Errorf("NonPublic(%s) = %q, want %q", addr, got, want)
		}
	}
}

// FuzzAllows: a host is allowed only when its canonical form is a listed
// name or address, or lies below a listed wildcard's domain and is no
// address; canonical forms are fixed points.
func FuzzAllows(f *testing.F) {
	f.Add("a.example.com", "*.example.com")
	f.Add("example.com.evil.com", "example.com")
	f.Add("evil.com#.example.com", "*.example.com")
	f.Add("127.0.0.1", "*.0.0.1")
	f.Add("BÜCHER.example.", "xn--bcher-kva.example")
	f.Add("[::ffff:10.0.0.1]", "10.0.0.1")
	f.Add("a%2eexample.com", "*.example.com")
	f.Fuzz(func(t *testing.T, host, pattern string) {
		if c, ok := Canonical(host); ok {
			if c2, ok2 := Canonical(c); !ok2 || c2 != c {
				t.Errorf("Canonical(%q) = %q, but Canonical(%q) = %q, %v", host, c, c, c2, ok2)
			}
			if strings.ContainsAny(c, "@#%/?\\ ") {
				t.Errorf("Canonical(%q) = %q holds a character no host name has", host, c)
			}
		}
		list, err := NewAllowlist([]string{pattern})
		if err != nil {
			return
		}
		how, ok := list.Allows(host)
		if !ok || pattern == "*" {
			return
		}
		h, _ := Canonical(host)
		sub, wild := strings.CutPrefix(pattern, "*.")
		p, _ := Canonical(sub)
		switch {
		case !wild && (h != p || how != ByName):
			t.Errorf("%q allows %q (%s) as %q", pattern, host, h, how)
		case wild && (!strings.HasSuffix(h, "."+p) || net.ParseIP(h) != nil || how != ByWildcard):
			t.Errorf("%q allows %q (%s) as %q", pattern, host, h, how)
		}
	})
}

// FuzzSplitAuthority: what comes out is a canonical host and a port in
// range, and reads back the same.
func FuzzSplitAuthority(f *testing.F) {
	for _, s := range []string{"example.com:443", "[::1]:80", "user@example.com:443", "a%2eb:80", "example.com:0443", "[::1]x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, authority string) {
		host, port, err := SplitAuthority(authority, "80")
		if err != nil {
			return
		}
		if c, ok := Canonical(host); !ok || c != host {
			t.Errorf("SplitAuthority(%q) host %q is not canonical (%q, %v)", authority, host, c, ok)
		}
		h2, p2, err := SplitAuthority(net.JoinHostPort(host, port), "")
		if err != nil || h2 != host || p2 != port {
			t.Errorf("SplitAuthority(%q) = %q, %q; joined again it reads %q, %q, %v", authority, host, port, h2, p2, err)
		}
	})
}
