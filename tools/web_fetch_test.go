package tools

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
)

// webScope is a shared scope whose web configuration is cfg.
func webScope(cfg WebConfig) *tool.Scope {
	return tool.NewScope(map[string]tool.Factory{
		WebConfigKey.ID: func(context.Context) (any, error) { return cfg, nil },
	}, nil)
}

// allowAllURLs is the URL gate of a policy that allows every fetch.
var allowAllURLs = policy.AllowAll().URLGate(newWebFetch(), tool.RiskLow, policy.Verdict{Decision: policy.Allow}, false)

// fetch runs web_fetch with args in a call whose configuration is cfg,
// under a gate that allows every URL.
func fetch(t *testing.T, cfg WebConfig, args string) (*WebFetchOutput, error) {
	t.Helper()
	return fetchUnder(t, cfg, allowAllURLs, args)
}

// fetchUnder runs web_fetch as the pipeline does, with gate provided for
// the call; a nil gate provides none.
func fetchUnder(t *testing.T, cfg WebConfig, gate tool.URLGate, args string) (*WebFetchOutput, error) {
	t.Helper()
	wf := newWebFetch()
	raw, err := tooltest.Validate(wf, args)
	if err != nil {
		return nil, err
	}
	scope := tool.NewScope(nil, webScope(cfg))
	defer scope.Close()
	if gate != nil {
		scope.Provide(tool.URLGateKey.ID, gate)
	}
	res, err := wf.Execute(context.Background(), tool.NewContext("call_test", wf.Name, nil, scope), raw)
	if err != nil {
		return nil, err
	}
	return res.Output.(*WebFetchOutput), nil
}

// countingServer is a loopback server that counts the requests it gets, so
// that a test can show a refused fetch sent nothing.
type countingServer struct {
	*httptest.Server
	hits    atomic.Int64
	release chan struct{} // closed when the test ends: handlers that hang return
}

func newWebServer(t *testing.T) *countingServer {
	s := &countingServer{release: make(chan struct{})}
	mux := http.NewServeMux()
	page := `<html><head><title>T</title><style>p{color:red}</style><script>alert(1)</script></head>
<body><h1>Quiver</h1><p>A <strong>tool</strong> runtime. See <a href="/docs/intro">the docs</a>.</p>
<ul><li>one</li><li>two</li></ul></body></html>`
	handle := func(path, contentType, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			fmt.Fprint(w, body)
		})
	}
	handle("/page", "text/html; charset=utf-8", page)
	handle("/svg", "text/html", `<html><body><p>Before <svg width="9"><title>icon title</title><text>drawn label</text></svg> after.</p>
<SVG viewBox="0 0 1 1"><desc>described</desc><foreignObject><p>foreign text</p></foreignObject><script>x()</script></SVG>
<p>End.</p></body></html>`)
	handle("/plain", "text/plain", "just text\n  kept as is <b>\n")
	handle("/json", "application/json", `{"a": [1, 2]}`)
	handle("/md", "text/markdown", "# Title\n\n*kept*\n")
	handle("/image", "image/png", "\x89PNG\r\n\x1a\n....")
	handle("/latin1", "text/plain; charset=iso-8859-1", "caf\xe9")
	handle("/wide", "text/plain; charset=utf-8", strings.Repeat("é", 50))
	handle("/huge", "text/plain", strings.Repeat("x", 4000))
	mux.HandleFunc("/sniff", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no header: the type is sniffed
		fmt.Fprint(w, "<!DOCTYPE html><html><body><p>sniffed <em>html</em></p></body></html>")
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "no such page")
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/hops/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/hops/%d", &n)
		if n == 0 {
			handleText(w, "arrived")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hops/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://127.0.0.1/file", http.StatusFound)
	})
	// /slow never answers and /stall never finishes its body, until the
	// client gives up or the test ends.
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "the start")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop-back", http.StatusFound)
	})
	mux.HandleFunc("/loop-back", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/self", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/self", http.StatusMovedPermanently)
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(s.release) }) // runs first: Close waits for the handlers
	return s
}

func handleText(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprint(w, s)
}

func TestWebFetchReturnsText(t *testing.T) {
	srv := newWebServer(t)
	cfg := WebConfig{AllowPrivate: true}
	tests := []struct {
		name string
		path string
		max  int
		want WebFetchOutput // URL and FinalURL are relative paths here
	}{
		{"HTML becomes Markdown with absolute links, without scripts or styles", "/page", 0, WebFetchOutput{
			FinalURL: "/page", Status: 200, ContentType: "text/html",
			Text: "# Quiver\n\nA **tool** runtime. See [the docs](" + srv.URL + "/docs/intro).\n\n- one\n- two"}},
		{"svg text is dropped as script and style text is, inline or not, in any case", "/svg", 0, WebFetchOutput{
			FinalURL: "/svg", Status: 200, ContentType: "text/html", Text: "Before after.\n\nEnd."}},
		{"plain text is returned as is", "/plain", 0, WebFetchOutput{
			FinalURL: "/plain", Status: 200, ContentType: "text/plain", Text: "just text\n  kept as is <b>\n"}},
		{"JSON is returned as is", "/json", 0, WebFetchOutput{
			FinalURL: "/json", Status: 200, ContentType: "application/json", Text: `{"a": [1, 2]}`}},
		{"Markdown is returned as is", "/md", 0, WebFetchOutput{
			FinalURL: "/md", Status: 200, ContentType: "text/markdown", Text: "# Title\n\n*kept*\n"}},
		{"a declared charset is decoded to UTF-8", "/latin1", 0, WebFetchOutput{
			FinalURL: "/latin1", Status: 200, ContentType: "text/plain", Text: "café"}},
		{"a missing content type is sniffed", "/sniff", 0, WebFetchOutput{
			FinalURL: "/sniff", Status: 200, ContentType: "text/html", Text: "sniffed *html*"}},
		{"an error page is returned with its status", "/missing", 0, WebFetchOutput{
			FinalURL: "/missing", Status: 404, ContentType: "text/plain", Text: "no such page"}},
		{"a redirect is followed and the final URL named", "/redirect", 0, WebFetchOutput{
			FinalURL: "/page", Status: 200, ContentType: "text/html",
			Text: "# Quiver\n\nA **tool** runtime. See [the docs](" + srv.URL + "/docs/intro).\n\n- one\n- two"}},
		{"ten redirects are followed", "/hops/10", 0, WebFetchOutput{
			FinalURL: "/hops/0", Status: 200, ContentType: "text/plain", Text: "arrived"}},
		{"max_length cuts the text at a character boundary", "/wide", 7, WebFetchOutput{
			FinalURL: "/wide", Status: 200, ContentType: "text/plain", Text: "ééééééé", Truncated: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := fmt.Sprintf(`{"url": %q}`, srv.URL+tt.path)
			if tt.max > 0 {
				args = fmt.Sprintf(`{"url": %q, "max_length": %d}`, srv.URL+tt.path, tt.max)
			}
			got, err := fetch(t, cfg, args)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.URL, want.FinalURL = srv.URL+tt.path, srv.URL+tt.want.FinalURL
			got.Bytes = 0 // checked in TestWebFetchBounds
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWebFetchBounds(t *testing.T) {
	srv := newWebServer(t)
	got, err := fetch(t, WebConfig{AllowPrivate: true, MaxBytes: 1000}, fmt.Sprintf(`{"url": %q}`, srv.URL+"/huge"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes != 1000 || len(got.Text) != 1000 || !got.Truncated {
		t.Errorf("a body over MaxBytes: bytes %d, text %d characters, truncated %v; want 1000, 1000, true", got.Bytes, len(got.Text), got.Truncated)
	}
	got, err = fetch(t, WebConfig{AllowPrivate: true}, fmt.Sprintf(`{"url": %q}`, srv.URL+"/huge"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Bytes != 4000 || got.Truncated {
		t.Errorf("a body under the limits: bytes %d, truncated %v; want 4000, false", got.Bytes, got.Truncated)
	}
	view := got.Render().String()
	if !strings.HasPrefix(view, "URL: "+srv.URL+"/huge\nStatus: 200\nContent-Type: text/plain\nBytes: 4000\n\nxxx") {
		t.Errorf("view starts %q", view[:100])
	}
}

func TestWebFetchErrors(t *testing.T) {
	srv := newWebServer(t)
	tests := []struct {
		name string
		cfg  WebConfig
		args string
		code tool.Code
		hint string
	}{
		{"a binary type is refused", WebConfig{AllowPrivate: true}, `{"url": "` + srv.URL + `/image"}`,
			tool.CodeExecutionFailed, "image/png, which web_fetch does not return"},
		{"an eleventh redirect is refused", WebConfig{AllowPrivate: true}, `{"url": "` + srv.URL + `/hops/11"}`,
			tool.CodeExecutionFailed, "stopped after 10 redirects (the next, from " + srv.URL + "/hops/1, was to " + srv.URL + "/hops/0)"},
		{"a redirect loop is refused", WebConfig{AllowPrivate: true}, `{"url": "` + srv.URL + `/loop"}`,
			tool.CodeExecutionFailed, "redirect loop: " + srv.URL + "/loop-back redirects back to " + srv.URL + "/loop"},
		{"a redirect to itself is a loop", WebConfig{AllowPrivate: true}, `{"url": "` + srv.URL + `/self"}`,
			tool.CodeExecutionFailed, "redirect loop"},
		{"a redirect to another scheme is refused, naming the hop", WebConfig{AllowPrivate: true}, `{"url": "` + srv.URL + `/to-ftp"}`,
			tool.CodeExecutionFailed, srv.URL + `/to-ftp redirected: url "ftp://127.0.0.1/file": scheme "ftp" is not supported`},
		{"a server that never answers times out, naming the limit", WebConfig{AllowPrivate: true, Timeout: 200 * time.Millisecond}, `{"url": "` + srv.URL + `/slow"}`,
			tool.CodeTimeout, "fetching " + srv.URL + "/slow ran into web_fetch's limit of 200ms for one call"},
		{"a body that never ends times out, naming the limit", WebConfig{AllowPrivate: true, Timeout: 200 * time.Millisecond}, `{"url": "` + srv.URL + `/stall"}`,
			tool.CodeTimeout, "fetching " + srv.URL + "/stall ran into web_fetch's limit of 200ms for one call"},
		{"a non-http scheme is refused", WebConfig{}, `{"url": "file:///etc/passwd"}`,
			tool.CodeInvalidArguments, `scheme "file" is not supported`},
		{"a relative URL is refused", WebConfig{}, `{"url": "example.com/page"}`,
			tool.CodeInvalidArguments, "use an http:// or https:// URL"},
		{"credentials in the URL are refused", WebConfig{}, `{"url": "https://user:pw@example.com/"}`,
			tool.CodeInvalidArguments, "credentials"},
		{"a missing url is an argument error", WebConfig{}, `{}`, tool.CodeInvalidArguments, "url"},
		{"a zero max_length is an argument error", WebConfig{}, `{"url": "https://example.com", "max_length": 0}`,
			tool.CodeInvalidArguments, "max_length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fetch(t, tt.cfg, tt.args)
			wantToolError(t, err, tt.code, tt.hint)
		})
	}
}

// TestWebFetchRefusesPrivateAddresses holds the default configuration to
// its promise: nothing on loopback, private, link-local or unspecified
// addresses is reached, whether named by address or by a host name that
// resolves to one, and nothing is sent to the server.
func TestWebFetchRefusesPrivateAddresses(t *testing.T) {
	srv := newWebServer(t)
	port := srv.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndex(port, ":"):]
	for _, u := range []string{
		srv.URL + "/plain",                   // 127.0.0.1, by address
		"http://localhost" + port + "/plain", // by a name resolved at dial time
		"http://[::ffff:127.0.0.1]" + port + "/plain",
		"http://10.0.0.1/", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/",
		"http://[::1]/", "http://0.0.0.0/", "http://[fe80::1]/", "http://100.64.0.1/", "http://224.0.0.1/",
	} {
		t.Run(u, func(t *testing.T) {
			_, err := fetch(t, WebConfig{}, fmt.Sprintf(`{"url": %q}`, u))
			wantToolError(t, err, tool.CodeNetworkDenied, "allow_private = true")
		})
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("the server got %d requests; want none", n)
	}
}

// TestWebClientChecksEveryDial shows the check runs on the address being
// dialled, after resolution (so DNS rebinding cannot slip past it) and
// before connect: the dialer's Control runs on the socket before any
// packet is sent, so this test sends no traffic to 10.0.0.1.
func TestWebClientChecksEveryDial(t *testing.T) {
	client := webClient(WebConfig{}.withDefaults(), allowAllURLs)
	for _, u := range []string{"http://10.0.0.1:9/", "http://169.254.169.254:9/"} {
		_, err := client.Get(u)
		var blocked *errBlocked
		if !errors.As(err, &blocked) {
			t.Errorf("GET %s: %v, want the dial refused", u, err)
		}
	}
	redirect, err := http.NewRequest(http.MethodGet, "http://169.254.169.254/latest/meta-data/", nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := http.NewRequest(http.MethodGet, "https://example.com/", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantToolError(t, client.CheckRedirect(redirect, []*http.Request{first}), tool.CodeNetworkDenied, "https://example.com/ redirected: refused to fetch http://169.254.169.254/latest/meta-data/")
}

// FuzzCheckFetchURL holds the URL check to its contract on any input: no
// panic, and an accepted URL is http or https with a host, no credentials,
// and no literal address in a blocked range.
func FuzzCheckFetchURL(f *testing.F) {
	for _, s := range []string{"https://example.com/a?b=c#d", "http://127.0.0.1:8080/", "http://[::ffff:10.0.0.1]/",
		"file:///etc/passwd", "http://user:pw@host/", "http://169.254.169.254/latest", "//example.com", "http://[fe80::1%25eth0]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := checkFetchURL(raw, false)
		if err != nil {
			var te *tool.Error
			if !errors.As(err, &te) {
				t.Fatalf("%q: error %v is not a *tool.Error", raw, err)
			}
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
			t.Fatalf("%q accepted as %s", raw, u)
		}
		if addr, err := netip.ParseAddr(u.Hostname()); err == nil && blockedAddr(addr) != "" {
			t.Fatalf("%q accepted with blocked address %s", raw, addr)
		}
	})
}

// silentListener accepts connections and never writes a byte: a TLS
// handshake with it never completes. Its connections close when the test
// ends.
func silentListener(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln
}

// TestWebFetchNamesTheLimitItRanInto: the servers here never answer, so
// which limit fires is decided by the configuration, not by timing luck.
// The generous limits are only a safety net.
func TestWebFetchNamesTheLimitItRanInto(t *testing.T) {
	srv := newWebServer(t)
	silent := "https://" + silentListener(t).Addr().String() + "/"

	t.Run("the connect limit: a TLS handshake that never ends", func(t *testing.T) {
		cfg := WebConfig{AllowPrivate: true, Timeout: time.Minute, ConnectTimeout: 100 * time.Millisecond}
		_, err := fetch(t, cfg, fmt.Sprintf(`{"url": %q}`, silent))
		wantToolError(t, err, tool.CodeTimeout, "fetching "+silent+": no connection within the connect limit of 100ms")
	})
	t.Run("the call's own deadline, when it comes before the tool's limit", func(t *testing.T) {
		wf := newWebFetch()
		raw, err := tooltest.Validate(wf, fmt.Sprintf(`{"url": %q}`, srv.URL+"/slow"))
		if err != nil {
			t.Fatal(err)
		}
		scope := tool.NewScope(nil, webScope(WebConfig{AllowPrivate: true, Timeout: time.Minute}))
		defer scope.Close()
		scope.Provide(tool.URLGateKey.ID, allowAllURLs)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err = wf.Execute(ctx, tool.NewContext("call_test", wf.Name, nil, scope), raw)
		wantToolError(t, err, tool.CodeTimeout, "fetching "+srv.URL+"/slow ran into the call's deadline")
	})
	t.Run("web_search: a backend that never answers", func(t *testing.T) {
		cfg := WebConfig{SearchURL: srv.URL + "/slow", Timeout: 200 * time.Millisecond}
		_, err := webSearchCall(t, cfg, `{"query": "q"}`)
		wantToolError(t, err, tool.CodeTimeout, "asking the search backend ran into web_search's limit of 200ms for one call")
	})
	t.Run("web_search: the connect limit", func(t *testing.T) {
		cfg := WebConfig{SearchURL: silent, Timeout: time.Minute, ConnectTimeout: 100 * time.Millisecond}
		_, err := webSearchCall(t, cfg, `{"query": "q"}`)
		wantToolError(t, err, tool.CodeTimeout, "no connection within the connect limit of 100ms")
	})
}

// TestTimedOutKnowsEveryLayer takes real errors from each layer that can
// notice a timeout (a context deadline, http.Client.Timeout,
// Transport.ResponseHeaderTimeout and TLSHandshakeTimeout, a dial deadline)
// and shows each is recognised by its type, not its text. The DNS error is
// made by hand: no resolver times out on loopback.
func TestTimedOutKnowsEveryLayer(t *testing.T) {
	srv := newWebServer(t)
	silent := "https://" + silentListener(t).Addr().String() + "/"
	get := func(c *http.Client, ctx context.Context, u string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET %s answered %s; want an error", u, resp.Status)
		}
		return err
	}
	short := 50 * time.Millisecond
	bg := context.Background()
	deadline, cancel := context.WithTimeout(bg, short)
	defer cancel()
	cancelled, cancelNow := context.WithCancel(bg)
	cancelNow()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	refused := closed.URL

	tests := []struct {
		name string
		err  func() error
		want bool
	}{
		{"context deadline", func() error { return get(http.DefaultClient, deadline, srv.URL+"/slow") }, true},
		{"http.Client.Timeout", func() error { return get(&http.Client{Timeout: short}, bg, srv.URL+"/slow") }, true},
		{"Transport.ResponseHeaderTimeout", func() error {
			return get(&http.Client{Transport: &http.Transport{ResponseHeaderTimeout: short}}, bg, srv.URL+"/slow")
		}, true},
		{"Transport.TLSHandshakeTimeout", func() error {
			return get(&http.Client{Transport: &http.Transport{TLSHandshakeTimeout: short}}, bg, silent)
		}, true},
		{"a dial deadline", func() error {
			d := &net.Dialer{Deadline: time.Now().Add(-time.Second)}
			return get(&http.Client{Transport: &http.Transport{DialContext: d.DialContext}}, bg, srv.URL+"/plain")
		}, true},
		{"a DNS lookup", func() error { return &net.DNSError{Err: "timeout", Name: "example.com", IsTimeout: true} }, true},
		{"a refused connection is not a timeout", func() error { return get(http.DefaultClient, bg, refused) }, false},
		{"a cancellation is not a timeout", func() error { return get(http.DefaultClient, cancelled, srv.URL+"/plain") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			if got := timedOut(err); got != tt.want {
				t.Errorf("timedOut(%v) = %v, want %v", err, got, tt.want)
			}
		})
	}
}

func TestWebFetchWithoutAGateFetchesNothing(t *testing.T) {
	srv := newWebServer(t)
	_, err := fetchUnder(t, WebConfig{AllowPrivate: true}, nil, fmt.Sprintf(`{"url": %q}`, srv.URL+"/plain"))
	wantToolError(t, err, tool.CodeToolNotAllowed, "none is provided; nothing was fetched")
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("the server got %d requests; want none", n)
	}
}

// FuzzCheckRedirect holds the redirect check to its contract for any
// Location a server may send: whatever it lets through is an http or https
// URL without credentials, with no literal address in a blocked range, and
// on no host the policy denies (blocked.example and its subdomains, in any
// spelling Go's URL parser accepts).
func FuzzCheckRedirect(f *testing.F) {
	for _, s := range []string{"https://example.com/next", "/relative", "//blocked.example/x", "HTTP://Blocked.Example./",
		"http://sub.blocked.example:8080/", "ftp://example.com/", "http://u:p@example.com/", "http://169.254.169.254/",
		"http://[::ffff:a9fe:a9fe]/", "https://blocked.example%2e/", "http://blocked%2eexample/", "http://0x7f.1/"} {
		f.Add(s)
	}
	pol, err := policy.New(policy.Config{Default: policy.Allow, Deny: []string{"web_fetch(domain:blocked.example)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		f.Fatal(err)
	}
	gate := pol.URLGate(newWebFetch(), tool.RiskLow, policy.Verdict{Decision: policy.Allow}, false)
	cfg := WebConfig{}.withDefaults()
	base, err := http.NewRequest(http.MethodGet, "https://start.example/page", nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, location string) {
		u, err := base.URL.Parse(location) // as net/http resolves a Location
		if err != nil {
			return
		}
		req := &http.Request{Method: http.MethodGet, URL: u}
		if err := checkRedirect(req, []*http.Request{base}, cfg, gate); err != nil {
			if tool.CodeOf(err) == "" {
				t.Fatalf("%q: error %v is not a *tool.Error", location, err)
			}
			return
		}
		host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		switch {
		case u.Scheme != "http" && u.Scheme != "https", u.User != nil:
			t.Fatalf("%q followed as %s", location, u)
		case host == "blocked.example" || strings.HasSuffix(host, ".blocked.example"):
			t.Fatalf("%q followed to the denied host %q", location, host)
		}
		if addr, err := netip.ParseAddr(u.Hostname()); err == nil && blockedAddr(addr) != "" {
			t.Fatalf("%q followed to the blocked address %s", location, addr)
		}
	})
}
