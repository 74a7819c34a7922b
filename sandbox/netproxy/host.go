package netproxy

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Canonical returns host as hosts are compared: an IP address in its
// standard form (an IPv4-mapped IPv6 address as IPv4), a name in lower
// case, without a trailing dot, with each Unicode label in its ASCII
// (punycode) form — the name a resolver is asked. ok is false for a host
// that is no valid name: an empty one, one with characters a domain name
// cannot hold (a space, '#', '@', '%', '/', ':' outside an IPv6 literal).
func Canonical(host string) (string, bool) {
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	if host == "" {
		return "", false
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return "", false // a zone names an interface of the host, not a host
		}
		return a.Unmap().String(), true
	}
	if !utf8.ValidString(host) {
		return "", false // idna would read each bad byte as U+FFFD
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil || ascii == "" {
		return "", false
	}
	ascii = strings.ToLower(ascii)
	if again, err := idna.Lookup.ToASCII(ascii); err != nil || again != ascii {
		return "", false // a form the lookup would not give back: no name
	}
	labels := strings.Split(ascii, ".")
	if slices.Contains(labels, "") || numeric(labels[len(labels)-1]) {
		return "", false
	}
	return ascii, true
}

// numeric reports whether a last label is a number, decimal or 0x hex: a
// URL parser reads such a host as an IPv4 address in one of its old forms
// (127.1, 0x7f.1, 2130706433), which a resolver may answer as one too. It is
// no name, and netip refuses it as an address.
func numeric(label string) bool {
	if h, ok := strings.CutPrefix(label, "0x"); ok {
		label = h
		return strings.Trim(label, "0123456789abcdef") == ""
	}
	return strings.Trim(label, "0123456789") == ""
}

// Allowlist is a list of host patterns as [sandbox] network writes them:
// "proxy.golang.org" names that host alone, "*.example.com" the names below
// example.com but not example.com itself, "*" every host, and an IP
// address that address alone. The zero Allowlist allows nothing.
type Allowlist struct {
	any   bool
	exact map[string]bool // canonical names and addresses
	wild  []string        // canonical suffixes, each with its leading dot
}

// ErrPattern marks a pattern that could name no host.
var ErrPattern = errors.New("not a host pattern")

// NewAllowlist parses patterns. A pattern that could name no host (a
// scheme, a port, a path, a wildcard anywhere but as the whole first
// label, an invalid name) is an error wrapping [ErrPattern]: a typo must
// not become a list that silently allows nothing.
func NewAllowlist(patterns []string) (Allowlist, error) {
	a := Allowlist{exact: map[string]bool{}}
	for _, p := range patterns {
		if err := CheckPattern(p); err != nil {
			return Allowlist{}, err
		}
		switch sub, wild := strings.CutPrefix(p, "*."); {
		case p == "*":
			a.any = true
		case wild:
			c, _ := Canonical(sub)
			a.wild = append(a.wild, "."+c)
		default:
			c, _ := Canonical(p)
			a.exact[c] = true
		}
	}
	return a, nil
}

// CheckPattern reports why p is not a host pattern, or nil.
func CheckPattern(p string) error {
	if p == "*" {
		return nil
	}
	host, wild := strings.CutPrefix(p, "*.")
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if wild {
			return fmt.Errorf("host pattern %q: a wildcard names names, not addresses: %w", p, ErrPattern)
		}
		if a.Zone() != "" {
			return fmt.Errorf("host pattern %q: an address with a zone: %w", p, ErrPattern)
		}
		return nil
	}
	if strings.ContainsAny(host, "*/:@#%?\\ ") {
		return fmt.Errorf("host pattern %q: write a host name (docs.example.com), *.example.com or *; no scheme, port, path or other wildcard: %w", p, ErrPattern)
	}
	if _, ok := Canonical(host); !ok {
		return fmt.Errorf("host pattern %q: not a valid host name: %w", p, ErrPattern)
	}
	return nil
}

// How a host was allowed.
const (
	ByName     = "name"     // listed by its own name, or its own address
	ByWildcard = "wildcard" // below a listed *.domain, or by "*"
)

// Allows reports whether a allows host (in any spelling [Canonical]
// accepts), and how: [ByName] or [ByWildcard]. A wildcard never allows an
// IP address, "*" excepted: "*.0.0.1" is no pattern, and 127.0.0.1 is not
// below "0.0.1".
func (a Allowlist) Allows(host string) (string, bool) {
	h, ok := Canonical(host)
	if !ok {
		return "", false
	}
	if a.exact[h] {
		return ByName, true
	}
	if a.any {
		return ByWildcard, true
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return "", false
	}
	for _, suffix := range a.wild {
		if strings.HasSuffix(h, suffix) {
			return ByWildcard, true
		}
	}
	return "", false
}

// ListsAddr reports whether a names addr itself (an IP pattern): the
// operator's word that a non-public address may be dialled.
func (a Allowlist) ListsAddr(addr netip.Addr) bool { return a.exact[addr.Unmap().String()] }

// Empty reports whether a allows no host at all.
func (a Allowlist) Empty() bool { return !a.any && len(a.exact) == 0 && len(a.wild) == 0 }

// SplitAuthority splits an authority as a request carries it (a CONNECT
// target, a Host header, an absolute URI's host) into its canonical host
// and port. defaultPort is used when the authority has none ("" to require
// one). Anything but host[:port] — userinfo, a path, a query, a fragment,
// percent-escapes, an empty or out-of-range port, an IPv6 address without
// brackets — is an error: the host a client names must be the one it is
// matched on, with nothing a later parser could read differently.
func SplitAuthority(authority, defaultPort string) (host, port string, err error) {
	if authority == "" || strings.ContainsAny(authority, "@/?#%\\ \t") {
		return "", "", fmt.Errorf("authority %q: want host:port, nothing else", authority)
	}
	host, port = authority, defaultPort
	switch i := strings.LastIndexByte(authority, ':'); {
	case strings.HasPrefix(authority, "["):
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return "", "", fmt.Errorf("authority %q: unclosed [", authority)
		}
		host = authority[1:end]
		if _, err := netip.ParseAddr(host); err != nil || !strings.Contains(host, ":") {
			return "", "", fmt.Errorf("authority %q: brackets hold an IPv6 address", authority)
		}
		rest := authority[end+1:]
		if rest != "" {
			p, ok := strings.CutPrefix(rest, ":")
			if !ok {
				return "", "", fmt.Errorf("authority %q: want [address]:port", authority)
			}
			port = p
		}
	case i >= 0:
		host, port = authority[:i], authority[i+1:]
		if strings.Contains(host, ":") {
			return "", "", fmt.Errorf("authority %q: an IPv6 address must be in brackets", authority)
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || port != strconv.Itoa(n) {
		return "", "", fmt.Errorf("authority %q: port %q: want 1 to 65535", authority, port)
	}
	c, ok := Canonical(host)
	if !ok || strings.HasSuffix(host, "..") {
		return "", "", fmt.Errorf("authority %q: %q is not a host name or address", authority, host)
	}
	return c, port, nil
}

// NonPublic names the range addr is in when it is not a public unicast
// address — loopback, private, link-local (the cloud metadata address
// among them), multicast, unspecified, carrier-grade NAT — or returns "".
// Such an address reaches the machine Quiver runs on or its network, not
// the internet.
func NonPublic(addr netip.Addr) string {
	addr = addr.Unmap()
	switch {
	case !addr.IsValid():
		return "invalid"
	case addr.IsLoopback():
		return "loopback"
	case addr.IsPrivate():
		return "private"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "link-local"
	case addr.IsMulticast(), addr.IsInterfaceLocalMulticast():
		return "multicast"
	case addr.IsUnspecified():
		return "unspecified"
	case cgnat.Contains(addr):
		return "shared (carrier-grade NAT)"
	case addr.Is4() && addr.As4()[0] == 0:
		return "this-network" // 0.0.0.0/8 reaches the host on Linux
	case nat64.Contains(addr):
		// An IPv4 address through a NAT64 gateway: public if it is.
		b := addr.As16()
		return NonPublic(netip.AddrFrom4([4]byte(b[12:])))
	}
	return ""
}

var (
	cgnat = netip.MustParsePrefix("100.64.0.0/10")
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)
