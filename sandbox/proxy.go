package sandbox

import "github.com/quiverkit/quiver/sandbox/netproxy"

// Proxied reports whether a process started under p reaches the network
// through the proxy: confined, offline, with hosts to reach ([Network]
// Proxied).
func (p *Profile) Proxied() bool {
	return p != nil && p.proxy != nil && !p.Network && p.Confined()
}

// RecordingContacts returns a copy of p whose processes' requests to the
// proxy, allowed or refused, are reported to rec: the call's audit record.
func (p *Profile) RecordingContacts(rec netproxy.Recorder) *Profile {
	q := *p
	q.contacts = rec
	return &q
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
