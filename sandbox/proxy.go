package sandbox

import "github.com/quiverkit/quiver/sandbox/netproxy"

// Proxied reports whether a process started under p reaches the network
// through the proxy: confined, offline, with hosts to reach ([Network]
// Proxied).
func (p *Profile) Proxied() bool {
	return p != nil && p.proxy != nil && !p.Network && p.Confined()
}

// RecordingContacts returns a copy of p whose processes' requests to the
// proxy, allowed or refused, are counted in t: the call's audit record, or
// the tally of a process that outlives its call, which the calls that
// observe it take.
func (p *Profile) RecordingContacts(t *netproxy.Tally) *Profile {
	q := *p
	q.contacts = t
	return &q
}

// Contacts returns the tally p's processes' requests are counted in, nil
// for none: a call's, to which it adds what the processes it observes
// asked for since it last looked (a job, a session, an MCP server).
func (p *Profile) Contacts() *netproxy.Tally {
	if p == nil {
		return nil
	}
	return p.contacts
}

// newProxy returns the proxy of cfg's list, or nil when processes get no
// proxy (no list, or every host).
func newProxy(cfg Config) *netproxy.Proxy {
	if !cfg.Network.Proxied() {
		return nil
	}
	var opts []netproxy.Option
	if cfg.ProxyResolver != nil {
		opts = append(opts, netproxy.WithResolver(cfg.ProxyResolver))
	}
	return netproxy.New(cfg.Network.allowlist(), opts...)
}
