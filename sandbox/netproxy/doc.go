// Package netproxy is the proxy through which a confined process reaches
// the hosts [sandbox] network lists, and the host matcher that decides
// which those are.
//
// A confined process has a network namespace of its own with nothing but
// a loopback interface. With a list of hosts, its launcher listens on a
// port of that loopback and passes each connection it accepts, as a file
// descriptor over a socket pair that only the launcher holds, to Quiver,
// which serves it here ([Proxy.ServeBridge]); the program finds the port
// in HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (and their lower-case forms).
// Nothing in the sandbox can open a Unix socket, and the bridge is no
// socket it could name: what a confined process can reach through it is
// this proxy's one conversation, a request for a host.
//
// The proxy speaks HTTP/1.1: absolute-form requests (GET http://host/...)
// for plain HTTP, and CONNECT host:port for everything else, HTTPS
// included, as a tunnel of bytes it does not look into (no TLS
// interception: the program checks the server's certificate itself). The
// host is matched on what the request names — the CONNECT target or the
// absolute URI's authority — and the Host header, which must agree, never
// on an address. The name is then resolved once and the address checked
// and dialled, so a DNS answer cannot change between check and connect;
// an address that is not public (loopback, private, link-local, ...) is
// dialled only for a host listed by its own name, or when the list names
// the address itself: a wildcard such as *.example.com covers names whose
// answers someone else may control. IP literals match only themselves.
//
// Every request is reported, allowed or refused ([Contact]), for the
// call's audit record.
package netproxy
