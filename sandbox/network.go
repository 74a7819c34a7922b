package sandbox

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"golang.org/x/net/idna"
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
// A pattern is matched as the policy's domain: specifiers are
// ([HostMatches]): "example.com" names the host and its subdomains,
// "*.example.com" only the subdomains, "*" every host.
//
// Processes reach the network only when the list allows every host: a
// confined process gets its own empty network namespace otherwise, since
// nothing yet filters a process's connections by host name (that is the
// proxy issue 28 plans). A list of names therefore lets the web tools reach
// those hosts unasked and keeps processes offline.
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
	return slices.ContainsFunc(n.Hosts, func(p string) bool { return HostMatches(host, p) })
}

// HostMatches reports whether host is named by pattern: "*" names every
// host, "*.example.com" the subdomains of example.com, and any other pattern
// the host itself and its subdomains. Both sides are compared in their
// canonical form ([CanonicalHost]); a host without one (it is not a valid
// name) is named only by "*". It is the one host matcher of Quiver: the
// policy's domain: rules and [Network] both use it.
func HostMatches(host, pattern string) bool {
	if pattern == "*" {
		return true
	}
	h, ok := CanonicalHost(host)
	if !ok {
		return false
	}
	sub, wild := strings.CutPrefix(pattern, "*.")
	p, ok := CanonicalHost(sub)
	if !ok {
		return false
	}
	if wild {
		return strings.HasSuffix(h, "."+p)
	}
	return h == p || strings.HasSuffix(h, "."+p)
}

// CanonicalHost returns host as hosts are compared: an IP address in its
// standard form, a name in lower case, without a trailing dot, with each
// Unicode label in its ASCII (punycode) form — the name Go's HTTP client
// looks up. ok is false for a host that is no valid name (an empty one, one
// with characters a domain name cannot hold).
func CanonicalHost(host string) (string, bool) {
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	if host == "" {
		return "", false
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String(), true
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil || ascii == "" {
		return "", false
	}
	return strings.ToLower(ascii), true
}

// UnmarshalTOML reads network = true, false or a list of host patterns.
func (n *Network) UnmarshalTOML(data []byte) error {
	var v struct {
		V any `toml:"v"`
	}
	if err := toml.Unmarshal(append([]byte("v = "), data...), &v); err != nil {
		return fmt.Errorf("sandbox.network: %w", err)
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
				return fmt.Errorf("sandbox.network[%d]: %v is not a host pattern (a string such as \"docs.example.com\" or \"*.example.com\")", i, e)
			}
			if err := checkHostPattern(s); err != nil {
				return fmt.Errorf("sandbox.network[%d]: %w", i, err)
			}
			hosts = append(hosts, s)
		}
		*n = Network{Hosts: hosts}
		return nil
	}
	return fmt.Errorf("sandbox.network: %s: want true, false or a list of host patterns", strings.TrimSpace(string(data)))
}

// checkHostPattern refuses a pattern that could name no host, so that a typo
// is an error rather than a list that silently allows nothing.
func checkHostPattern(p string) error {
	if p == "*" {
		return nil
	}
	host := strings.TrimPrefix(p, "*.")
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && host == p {
		return nil
	}
	if strings.ContainsAny(host, "*/:@ ") {
		return fmt.Errorf("host pattern %q: write a host name (docs.example.com), *.example.com or *; no scheme, port, path or other wildcard", p)
	}
	if _, ok := CanonicalHost(host); !ok {
		return fmt.Errorf("host pattern %q: not a valid host name", p)
	}
	return nil
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
