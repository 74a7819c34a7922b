package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Proxy serves the requests of confined processes for the hosts of its
// [Allowlist]. It is safe for concurrent use; one serves every call of a
// toolkit.
type Proxy struct {
	allow   Allowlist
	resolve Resolver
	dialer  net.Dialer
}

// Resolver returns the addresses of a host name.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// Option configures a [Proxy].
type Option func(*Proxy)

// WithResolver makes the proxy look names up with r instead of the
// system's resolver: for tests, which give their host names the address
// of a server on 127.0.0.1 without touching /etc/hosts or a real domain.
func WithResolver(r Resolver) Option { return func(p *Proxy) { p.resolve = r } }

// Limits of one request: hang guards, not budgets.
const (
	headerTimeout = time.Minute // for the request's header to arrive
	dialTimeout   = 30 * time.Second
	maxHeader     = 64 << 10
)

// New returns a proxy for the hosts of allow.
func New(allow Allowlist, opts ...Option) *Proxy {
	p := &Proxy{allow: allow, dialer: net.Dialer{Timeout: dialTimeout}}
	p.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Contact is one request of a confined process, as its call's audit record
// lists it.
type Contact struct {
	Host    string `json:"host"` // canonical, or as written when it is none
	Port    string `json:"port,omitempty"`
	Method  string `json:"method"` // CONNECT, or the HTTP method
	Allowed bool   `json:"allowed"`
	// Refused says why a request was refused: the host is not listed, the
	// Host header names another host, it resolves to an address that is
	// not public, the request is malformed.
	Refused string `json:"refused,omitempty"`
}

// Recorder is told of every request a proxy serves.
type Recorder func(Contact)

// refusal is a request refused with an HTTP status.
type refusal struct {
	status int
	why    string
}

func (r *refusal) Error() string { return r.why }

func refuse(status int, format string, args ...any) *refusal {
	return &refusal{status, fmt.Sprintf(format, args...)}
}

// Serve serves one connection of a confined process: one request, and for
// CONNECT the tunnel that follows. It closes conn, and reports the request
// to record (which may be nil).
func (p *Proxy) Serve(ctx context.Context, conn net.Conn, record Recorder) {
	defer conn.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	conn.SetReadDeadline(time.Now().Add(headerTimeout))
	br := bufio.NewReader(conn)
	req, in, c, err := p.readRequest(br)
	conn.SetReadDeadline(time.Time{})
	if record == nil {
		record = func(Contact) {}
	}
	if err == nil {
		err = p.serve(ctx, conn, in, req, c, record)
	}
	var r *refusal
	if errors.As(err, &r) {
		c.Refused = r.why
		record(c)
		writeRefusal(conn, r)
	}
}

// readRequest reads one request and decides its target. in reads what the
// client sent after the request's header.
func (p *Proxy) readRequest(br *bufio.Reader) (*http.Request, *bufio.Reader, Contact, error) {
	raw, err := readHeader(br)
	if err != nil {
		return nil, nil, Contact{}, err // nothing came that names a host
	}
	in := bufio.NewReader(io.MultiReader(bytes.NewReader(raw), br))
	req, err := http.ReadRequest(in)
	if err != nil {
		return nil, nil, Contact{Method: "?", Host: "?"}, refuse(http.StatusBadRequest, "malformed request: %v", err)
	}
	c := Contact{Method: req.Method, Host: "?"}
	host, port, err := target(req)
	if err != nil {
		c.Host = clip(req.RequestURI)
		return nil, nil, c, refuse(http.StatusBadRequest, "%v", err)
	}
	c.Host, c.Port = host, port
	if err := hostHeaderAgrees(raw, req.Method, host, port); err != nil {
		return nil, nil, c, err
	}
	return req, in, c, nil
}

// readHeader reads a request's header, through its empty line, as sent.
func readHeader(br *bufio.Reader) ([]byte, error) {
	var raw []byte
	for len(raw) <= maxHeader {
		line, err := br.ReadSlice('\n')
		raw = append(raw, line...)
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
		if err == nil && (string(line) == "\r\n" || string(line) == "\n") && len(raw) > len(line) {
			return raw, nil
		}
	}
	return nil, errors.New("request header too long")
}

// target returns the host and port a request names: the CONNECT target,
// or the authority of an absolute http:// URI, read as sent (url.Parse
// would decode %2e in a host).
func target(req *http.Request) (string, string, error) {
	if req.Method == http.MethodConnect {
		return SplitAuthority(req.RequestURI, "")
	}
	uri := req.RequestURI
	if len(uri) < 7 || !strings.EqualFold(uri[:7], "http://") {
		return "", "", fmt.Errorf("%s %s: a proxy takes absolute http:// URIs, and CONNECT host:port for anything else (https included)", req.Method, uri)
	}
	authority, _, _ := strings.Cut(uri[7:], "/")
	if strings.ContainsAny(authority, "?#@") {
		return "", "", fmt.Errorf("%s %s: the URI's authority holds more than host:port", req.Method, uri)
	}
	return SplitAuthority(authority, "80")
}

// hostHeaderAgrees refuses a request whose Host header names another host
// than its target (or another port, when it names one), so that no server
// behind an allowed name is asked for another's content, and no log reads
// one host for another.
func hostHeaderAgrees(raw []byte, method, host, port string) error {
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw)))
	if _, err := tp.ReadLine(); err != nil {
		return refuse(http.StatusBadRequest, "malformed request: %v", err)
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		return refuse(http.StatusBadRequest, "malformed header: %v", err)
	}
	// http.ReadRequest keeps a field named "Host " (a space before the
	// colon) as another header, which a lenient server behind may read
	// as the Host: refuse what Go's own server refuses.
	for name, values := range hdr {
		if !httpguts.ValidHeaderFieldName(name) {
			return refuse(http.StatusBadRequest, "malformed header name %q", clip(name))
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return refuse(http.StatusBadRequest, "malformed value of header %s", name)
			}
		}
	}
	values := hdr.Values("Host")
	switch {
	case len(values) == 0:
		return nil // nothing to disagree with the target
	case len(values) > 1:
		return refuse(http.StatusBadRequest, "%d Host headers", len(values))
	}
	hh, hp, err := SplitAuthority(values[0], port)
	if err != nil {
		return refuse(http.StatusBadRequest, "Host header: %v", err)
	}
	if hh != host || hp != port {
		return refuse(http.StatusBadRequest, "the Host header names %s:%s, the request %s %s:%s: they must agree", hh, hp, method, host, port)
	}
	return nil
}

// serve checks c's host against the list, dials it and relays; it records
// c once the host is reached (a tunnel may last as long as its program).
func (p *Proxy) serve(ctx context.Context, conn net.Conn, in *bufio.Reader, req *http.Request, c Contact, record Recorder) error {
	how, ok := p.allow.Allows(c.Host)
	if !ok {
		return refuse(http.StatusForbidden, "%s is not listed in [sandbox] network", c.Host)
	}
	up, err := p.dial(ctx, c.Host, c.Port, how)
	if err != nil {
		return err
	}
	defer up.Close()
	c.Allowed = true
	record(c)
	if req.Method == http.MethodConnect {
		if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			return nil
		}
		relay(conn, in, up)
		return nil
	}
	forward(conn, req, up)
	return nil
}

// dial resolves host once and dials the first of its addresses that may be
// dialled: a public one, or any for a host the list names itself (how is
// ByName) or an address the list names.
func (p *Proxy) dial(ctx context.Context, host, port, how string) (net.Conn, error) {
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		rctx, cancel := context.WithTimeout(ctx, dialTimeout)
		addrs, err = p.resolve(rctx, host)
		cancel()
		if err != nil || len(addrs) == 0 {
			return nil, refuse(http.StatusBadGateway, "%s does not resolve: %v", host, err)
		}
	}
	var errs []error
	blocked := 0
	for _, a := range addrs {
		a = a.Unmap()
		if why := NonPublic(a); why != "" && how != ByName && !p.allow.ListsAddr(a) {
			blocked++
			errs = append(errs, fmt.Errorf("%s is a %s address (list the host by its own name, or the address, to allow it)", a, why))
			continue
		}
		up, err := p.dialer.DialContext(ctx, "tcp", net.JoinHostPort(a.String(), port))
		if err == nil {
			return up, nil
		}
		errs = append(errs, err)
	}
	status := http.StatusBadGateway
	if blocked == len(addrs) {
		status = http.StatusForbidden
	}
	return nil, refuse(status, "%s: %v", host, errors.Join(errs...))
}

// relay copies both ways between the client (reading from in, which holds
// what it sent after its request) and up, until both directions end.
func relay(conn net.Conn, in io.Reader, up net.Conn) {
	done := make(chan struct{})
	go func() {
		io.Copy(up, in)
		closeWrite(up)
		close(done)
	}()
	io.Copy(conn, up)
	closeWrite(conn)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// hopByHop are the headers meant for the proxy, not the server.
var hopByHop = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate", "Te", "Trailer", "Upgrade"}

// forward sends req to up in origin form and its response back to the
// client; the connection carries this one exchange (Connection: close).
func forward(conn net.Conn, req *http.Request, up net.Conn) {
	for _, name := range req.Header.Values("Connection") {
		for _, h := range strings.Split(name, ",") {
			req.Header.Del(strings.TrimSpace(h))
		}
	}
	for _, h := range hopByHop {
		req.Header.Del(h)
	}
	out := req.Clone(context.Background())
	out.RequestURI = ""
	out.Close = true
	if err := out.Write(up); err != nil {
		writeRefusal(conn, refuse(http.StatusBadGateway, "sending the request: %v", err))
		return
	}
	resp, err := http.ReadResponse(bufio.NewReader(up), out)
	if err != nil {
		writeRefusal(conn, refuse(http.StatusBadGateway, "reading the response: %v", err))
		return
	}
	defer resp.Body.Close()
	resp.Close = true
	resp.Write(conn)
}

// writeRefusal answers a refused request with its status and why, in the
// body, for the program's user to read.
func writeRefusal(conn net.Conn, r *refusal) {
	body := "quiver: " + r.why + "\n"
	fmt.Fprintf(conn, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		r.status, http.StatusText(r.status), len(body), body)
}

// clip bounds what a malformed request puts in a record.
func clip(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
