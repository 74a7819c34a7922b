package policy

import (
	"net/url"
	"slices"
	"strings"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/netproxy"
	"github.com/quiverkit/quiver/tool"
)

// WithNetwork returns a copy of p whose calls may send data unasked to the
// hosts n lists: [sandbox] network, the one list of allowed hosts (see
// [sandbox.Network]). A call with a URL subject whose host n does not list
// is not passed by the low-risk default (row 8 of the decision table): it
// gets the default, "ask" unless the operator changed it. Rules still
// decide first: an allow rule naming the tool (web_fetch, or
// web_fetch(domain:docs.example)) passes the calls it covers. The toolkit
// calls it with the sandbox configuration it was given, so that the web
// tools and the processes read the same list.
func (p *Policy) WithNetwork(n sandbox.Network) *Policy {
	q := *p
	q.network = sandbox.Network{Hosts: slices.Clone(n.Hosts)}
	return &q
}

// Network returns the list of hosts calls may send data to unasked.
func (p *Policy) Network() sandbox.Network { return p.network }

// egress returns the hosts of the URL subjects that the network list does
// not allow, each once. A URL without a host (or one that does not parse)
// counts as not allowed: where it would lead is unknown.
func (p *Policy) egress(subjects []tool.Subject) []string {
	if p.network.All() {
		return nil
	}
	var hosts []string
	for _, s := range subjects {
		if s.Kind != tool.SubjectURL {
			continue
		}
		host := urlHost(s.Value)
		if !p.network.Allows(host) && !slices.Contains(hosts, host) {
			hosts = append(hosts, host)
		}
	}
	return hosts
}

// urlHost is the host of rawURL as the network list compares it, or
// rawURL itself when it has none.
func urlHost(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Hostname() == "" {
		return rawURL
	}
	if h, ok := netproxy.Canonical(u.Hostname()); ok {
		return h
	}
	return u.Hostname()
}

// egressVerdict is the default's decision for a call that sends data to
// hosts the network list does not allow; its rule names them and the
// setting that would allow them, for the audit record and for whoever is
// asked (or refused).
func (p *Policy) egressVerdict(hosts []string) Verdict {
	return Verdict{Decision: p.def, Rule: "default = " + string(p.def) + ": the call sends data to " +
		strings.Join(hosts, ", ") + ", not listed in [sandbox] network (list it there to allow it unasked)", Hosts: hosts}
}

// mayReachUnlisted reports whether some call of t may send data to a host
// the network list does not allow: t reaches out (annotated open-world) and
// names where (URL subjects), and the list does not allow every host.
func (p *Policy) mayReachUnlisted(t *tool.Tool) bool {
	return !p.network.All() && t.Annotations.OpenWorld && (t.Subjects != nil || t.Reaches != nil)
}

// approvedHosts reports whether every host of an egress verdict hop was
// among those a person approved sending to.
func approvedHosts(hop, approved Verdict) bool {
	if len(hop.Hosts) == 0 {
		return false
	}
	for _, h := range hop.Hosts {
		if !slices.Contains(approved.Hosts, h) {
			return false
		}
	}
	return true
}
