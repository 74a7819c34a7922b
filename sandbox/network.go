package sandbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/quiverkit/quiver/sandbox/netproxy"
)

// Network is [sandbox] network: the hosts that calls may send data to. It is
// the one list of allowed hosts for everything that reaches the network —
// web_fetch, web_search (its engine's host) and confined processes — so
// that allowing a host is one setting, whoever would reach it.
//
// In quiver.toml it is a boolean or a list of host patterns:
//
//	network = false                                    # the default: no host
//	network = true                                     # every host: the same as ["*"]
//	network = ["docs.example.com", "*.golang.org"]     # these hosts
//
// A pattern names hosts as [netproxy.Allowlist] reads it: "docs.example.com"
// that host alone, "*.example.com" the names below example.com (not
// example.com itself), an IP address that address, "*" every host.
//
// A list of names lets the web tools reach those hosts unasked, and
// confined processes reach them over HTTP and CONNECT through Quiver's
// proxy (see the package doc, The network proxy) and nothing else. Only
// "*" gives processes the network itself.
type Network struct {
	// Hosts are the host patterns, as written ("*" for every host).
	Hosts []string
}

// AnyHost is the Network that allows every host ([sandbox] network = true).
var AnyHost = Network{Hosts: []string{"*"}}

// All reports whether n allows every host: the one case in which a
// confined process gets the network.
func (n Network) All() bool { return slices.Contains(n.Hosts, "*") }

// Allows reports whether n allows host, which may be spelled in any case,
// with a trailing dot, in Unicode or in its punycode form.
func (n Network) Allows(host string) bool {
	_, ok := n.allowlist().Allows(host)
	return ok
}

// allowlist is n's list as the proxy matches it. Every pattern was checked
// when the setting was read.
func (n Network) allowlist() netproxy.Allowlist {
	a, _ := netproxy.NewAllowlist(slices.DeleteFunc(slices.Clone(n.Hosts), func(p string) bool { return netproxy.CheckPattern(p) != nil }))
	return a
}

// Proxied reports whether n lets confined processes reach some hosts
// through the proxy: a list of names (and not every host).
func (n Network) Proxied() bool { return len(n.Hosts) > 0 && !n.All() }

// Union returns the hosts of n and of o: a per-server setting adds to
// [sandbox] network, as true and false always have.
func (n Network) Union(o Network) Network {
	if n.All() || o.All() {
		return AnyHost
	}
	hosts := slices.Clone(n.Hosts)
	for _, h := range o.Hosts {
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return Network{Hosts: hosts}
}

// HostMatches reports whether host is named by pattern as the policy's
// domain: rules read one: "*" names every host, "*.example.com" the
// subdomains of example.com, and any other pattern the host itself and its
// subdomains. Both sides are compared in their canonical form
// ([netproxy.Canonical]); a host without one (it is not a valid name) is
// named only by "*". [Network] lists hosts more narrowly: a name there is
// that host alone.
func HostMatches(host, pattern string) bool {
	if pattern == "*" {
		return true
	}
	h, ok := netproxy.Canonical(host)
	if !ok {
		return false
	}
	sub, wild := strings.CutPrefix(pattern, "*.")
	p, ok := netproxy.Canonical(sub)
	if !ok {
		return false
	}
	if wild {
		return strings.HasSuffix(h, "."+p)
	}
	return h == p || strings.HasSuffix(h, "."+p)
}

// UnmarshalTOML reads network = true, false or a list of host patterns.
func (n *Network) UnmarshalTOML(data []byte) error {
	var v struct {
		V any `toml:"v"`
	}
	if err := toml.Unmarshal(append([]byte("v = "), data...), &v); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	switch x := v.V.(type) {
	case bool:
		*n = Network{}
		if x {
			*n = AnyHost
		}
		return nil
	case []any:
		hosts := make([]string, 0, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("network[%d]: %v is not a host pattern (a string such as \"docs.example.com\" or \"*.example.com\")", i, e)
			}
			if err := netproxy.CheckPattern(s); err != nil {
				return fmt.Errorf("network[%d]: %w", i, err)
			}
			hosts = append(hosts, s)
		}
		*n = Network{Hosts: hosts}
		return nil
	}
	return fmt.Errorf("network: %s: want true, false or a list of host patterns", strings.TrimSpace(string(data)))
}

// String is the list as quiver.toml would write it.
func (n Network) String() string {
	switch {
	case len(n.Hosts) == 0:
		return "false"
	case len(n.Hosts) == 1 && n.All():
		return "true"
	}
	q := make([]string, len(n.Hosts))
	for i, h := range n.Hosts {
		q[i] = fmt.Sprintf("%q", h)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
