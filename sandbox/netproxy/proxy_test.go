package netproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// loopbackResolver gives every name ending in .test the address
// 127.0.0.1: no real domain is asked.
func loopbackResolver(_ context.Context, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".test") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, fmt.Errorf("%s: no such host in this test", host)
}

// contacts collects what a proxy reports.
type contacts struct {
	mu   sync.Mutex
	list []Contact
}

func (c *contacts) record(x Contact) { c.mu.Lock(); c.list = append(c.list, x); c.mu.Unlock() }

func (c *contacts) all() []Contact {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Contact(nil), c.list...)
}

// startProxy serves a proxy for patterns on a loopback port.
func startProxy(t testing.TB, patterns ...string) (string, *contacts) {
	t.Helper()
	list, err := NewAllowlist(patterns)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := &contacts{}
	go New(list, WithResolver(loopbackResolver)).ServeListener(context.Background(), l, got.record)
	return l.Addr().String(), got
}

// rawRequest sends req as written to the proxy and returns the status line
// and body of its answer.
func rawRequest(t *testing.T, proxy, req string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute)) // a hang guard: a tunnel wrongly opened stays open
	io.WriteString(c, req)
	method, _, _ := strings.Cut(req, " ")
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%q: %v", req, err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestHTTPAndConnect: through the proxy, a listed name is reached over
// plain HTTP and through a CONNECT tunnel (TLS end to end, the proxy
// seeing none of it), and every other request is refused and reported.
func TestHTTPAndConnect(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.Host)
	}))
	defer origin.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "secure %s", r.Host)
	}))
	defer secure.Close()
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	_, sport, _ := net.SplitHostPort(secure.Listener.Addr().String())
	proxy, got := startProxy(t, "allowed.test", "*.wild.test")

	client := func(tlsConfig *tls.Config) *http.Client {
		u, _ := url.Parse("http://" + proxy)
		return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: tlsConfig}}
	}
	pool := secure.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	for _, tt := range []struct {
		url, want string
		status    int
	}{
		{"http://allowed.test:" + port + "/x", "hello allowed.test:" + port, 200},
		{"https://allowed.test:" + sport + "/x", "secure allowed.test:" + sport, 200},
		{"http://refused.test:" + port + "/x", "quiver: refused.test is not listed in [sandbox] network\n", 403},
		{"http://a.wild.test:" + port + "/", "hello a.wild.test:" + port, 403}, // a wildcard's name at a loopback address
		{"http://wild.test:" + port + "/", "", 403},
		{"http://127.0.0.1:" + port + "/", "", 403},
	} {
		resp, err := client(&tls.Config{RootCAs: pool, ServerName: "example.com"}).Get(tt.url)
		if strings.HasPrefix(tt.url, "https://") && tt.status != 200 {
			if err == nil {
				t.Errorf("GET %s through a refused CONNECT: no error", tt.url)
			}
			continue
		}
		if err != nil {
			t.Errorf("GET %s: %v", tt.url, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || (tt.status == 200 || strings.HasPrefix(tt.want, "quiver")) && string(body) != tt.want {
			t.Errorf("GET %s: %d %q, want %d %q", tt.url, resp.StatusCode, body, tt.status, tt.want)
		}
	}
	if _, err := client(&tls.Config{RootCAs: pool, ServerName: "example.com"}).Get("https://refused.test:" + sport + "/"); err == nil {
		t.Error("CONNECT refused.test: no error")
	}
	want := []Contact{
		{Host: "allowed.test", Port: port, Method: "GET", Allowed: true},
		{Host: "allowed.test", Port: sport, Method: "CONNECT", Allowed: true},
		{Host: "refused.test", Port: port, Method: "GET", Refused: "refused.test is not listed in [sandbox] network"},
		{Host: "a.wild.test", Port: port, Method: "GET", Refused: "a.wild.test: 127.0.0.1 is a loopback address (list the host by its own name, or the address, to allow it)"},
		{Host: "wild.test", Port: port, Method: "GET", Refused: "wild.test is not listed in [sandbox] network"},
		{Host: "127.0.0.1", Port: port, Method: "GET", Refused: "127.0.0.1 is not listed in [sandbox] network"},
		{Host: "refused.test", Port: sport, Method: "CONNECT", Refused: "refused.test is not listed in [sandbox] network"},
	}
	if diff := cmp.Diff(want, got.all()); diff != "" {
		t.Errorf("contacts (-want +got):\n%s", diff)
	}
}

// TestAddressListed: a wildcard's name reaches a non-public address when
// the list names that address, and an IP literal is reached only then.
func TestAddressListed(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer origin.Close()
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	proxy, _ := startProxy(t, "*.wild.test", "127.0.0.1")
	for _, target := range []string{"a.wild.test", "127.0.0.1"} {
		status, body := rawRequest(t, proxy, "GET http://"+target+":"+port+"/ HTTP/1.1\r\nHost: "+target+":"+port+"\r\n\r\n")
		if status != 200 || body != "ok" {
			t.Errorf("%s: %d %q, want 200 ok", target, status, body)
		}
	}
}

// TestAttacks: requests written to pass a refused host off as an allowed
// one, or to reach what the proxy itself could, are refused, and none
// reaches the origin.
func TestAttacks(t *testing.T) {
	reached := make(chan string, 100)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- r.Host + r.URL.String()
	}))
	defer origin.Close()
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	proxy, _ := startProxy(t, "allowed.test")
	for _, tt := range []struct{ name, req string }{
		{"Host header differs from the CONNECT target", "CONNECT allowed.test:" + port + " HTTP/1.1\r\nHost: refused.test:" + port + "\r\n\r\n"},
		{"CONNECT target differs from the Host header", "CONNECT refused.test:" + port + " HTTP/1.1\r\nHost: allowed.test:" + port + "\r\n\r\n"},
		{"absolute URI differs from the Host header", "GET http://allowed.test:" + port + "/ HTTP/1.1\r\nHost: refused.test\r\n\r\n"},
		{"Host header port differs", "GET http://allowed.test:" + port + "/ HTTP/1.1\r\nHost: allowed.test:1\r\n\r\n"},
		{"origin form, Host allowed", "GET / HTTP/1.1\r\nHost: allowed.test:" + port + "\r\n\r\n"},
		{"two Host headers", "GET http://allowed.test:" + port + "/ HTTP/1.1\r\nHost: allowed.test:" + port + "\r\nHost: refused.test\r\n\r\n"},
		{"userinfo", "GET http://allowed.test@refused.test:" + port + "/ HTTP/1.1\r\n\r\n"},
		{"userinfo in CONNECT", "CONNECT allowed.test@refused.test:" + port + " HTTP/1.1\r\n\r\n"},
		{"fragment", "CONNECT refused.test#.allowed.test:" + port + " HTTP/1.1\r\n\r\n"},
		{"suffix", "CONNECT allowed.test.refused.test:" + port + " HTTP/1.1\r\n\r\n"},
		{"percent-escape", "GET http://allowed%2etest:" + port + "/ HTTP/1.1\r\n\r\n"},
		{"IP literal", "CONNECT 127.0.0.1:" + port + " HTTP/1.1\r\n\r\n"},
		{"IPv6 literal", "CONNECT [::1]:" + port + " HTTP/1.1\r\n\r\n"},
		{"mapped IPv6 literal", "CONNECT [::ffff:127.0.0.1]:" + port + " HTTP/1.1\r\n\r\n"},
		{"decimal address", "GET http://2130706433:" + port + "/ HTTP/1.1\r\n\r\n"},
		{"https absolute URI", "GET https://allowed.test:" + port + "/ HTTP/1.1\r\n\r\n"},
		{"CONNECT without a port", "CONNECT allowed.test HTTP/1.1\r\n\r\n"},
		{"backslash", "GET http://refused.test\\@allowed.test:" + port + "/ HTTP/1.1\r\n\r\n"},
	} {
		status, body := rawRequest(t, proxy, tt.req)
		if status < 400 {
			t.Errorf("%s: %d %q, want a refusal", tt.name, status, body)
		}
	}
	select {
	case r := <-reached:
		t.Errorf("the origin was reached: %s", r)
	default:
	}
}

// TestHostHeaderOptional: a request without a Host header is matched on
// its target alone, and a Host header without a port takes the target's
// scheme's.
func TestHostHeaderOptional(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer origin.Close()
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	proxy, _ := startProxy(t, "allowed.test")
	status, body := rawRequest(t, proxy, "GET http://allowed.test:"+port+"/ HTTP/1.0\r\n\r\n")
	if status != 200 || body != "ok" {
		t.Errorf("no Host header: %d %q", status, body)
	}
	status, body = rawRequest(t, proxy, "GET http://allowed.test:"+port+"/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n")
	if status != 200 || body != "ok" {
		t.Errorf("a Host header without the port: %d %q", status, body)
	}
}

// FuzzRequest: whatever a client writes, a request the proxy would pass
// on names an allowed host in its target, and its Host header, if any,
// names that host too.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n",
		"CONNECT allowed.test:443 HTTP/1.1\r\nHost: refused.test:443\r\n\r\n",
		"GET http://allowed.test/ HTTP/1.1\r\nHost: refused.test\r\n\r\n",
		"GET http://allowed.test@refused.test/ HTTP/1.1\r\n\r\n",
		"GET http://allowed%2etest/ HTTP/1.1\r\n\r\n",
		"GET HTTP://ALLOWED.TEST./ HTTP/1.1\r\nhost: allowed.test:80\r\n\r\n",
		"CONNECT [::1]:443 HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
	} {
		f.Add(s)
	}
	list, _ := NewAllowlist([]string{"allowed.test"})
	p := New(list, WithResolver(loopbackResolver))
	f.Fuzz(func(t *testing.T, raw string) {
		req, _, c, err := p.readRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return
		}
		if _, ok := p.allow.Allows(c.Host); !ok {
			return
		}
		if c.Host != "allowed.test" {
			t.Fatalf("%q passes as %q", raw, c.Host)
		}
		if hh, _, err := SplitAuthority(req.Host, c.Port); err != nil || hh != "allowed.test" {
			t.Fatalf("%q passes with a request for %q", raw, req.Host)
		}
		// Every line a lenient server could take for a Host header names
		// the allowed host too.
		head, _, _ := strings.Cut(strings.ReplaceAll(raw, "\r\n", "\n"), "\n\n")
		for _, l := range strings.Split(head, "\n")[1:] {
			name, value, ok := strings.Cut(l, ":")
			if !ok || !strings.EqualFold(strings.TrimSpace(name), "host") {
				continue
			}
			if hh, _, err := SplitAuthority(strings.TrimSpace(value), c.Port); err != nil || hh != "allowed.test" {
				t.Fatalf("%q passes with a Host line %q", raw, l)
			}
		}
	})
}
