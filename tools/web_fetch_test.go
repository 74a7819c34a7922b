package tools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
)

// webScope is a shared scope whose web configuration is cfg.
func webScope(cfg WebConfig) *tool.Scope {
	return tool.NewScope(map[string]tool.Factory{
		WebConfigKey.ID: func(context.Context) (any, error) { return cfg, nil },
	}, nil)
}

// fetch runs web_fetch with args in a call whose configuration is cfg.
func fetch(t *testing.T, cfg WebConfig, args string) (*WebFetchOutput, error) {
	t.Helper()
	res, err := tooltest.Call(context.Background(), newWebFetch(), webScope(cfg), args)
	if err != nil {
		return nil, err
	}
	return res.Output.(*WebFetchOutput), nil
}

// countingServer is a loopback server that counts the requests it gets, so
// that a test can show a refused fetch sent nothing.
type countingServer struct {
	*httptest.Server
	hits atomic.Int64
}

func newWebServer(t *testing.T) *countingServer {
	s := &countingServer{}
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
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
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
		{"five redirects are followed", "/hops/5", 0, WebFetchOutput{
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
		{"a sixth redirect is refused", WebConfig{AllowPrivate: true}, `{"url": "` + srv.URL + `/hops/6"}`,
			tool.CodeExecutionFailed, "stopped after 5 redirects"},
		{"a redirect to another scheme is refused", WebConfig{AllowPrivate: true}, `{"url": "` + srv.URL + `/to-ftp"}`,
			tool.CodeInvalidArguments, `scheme "ftp" is not supported`},
		{"a slow server times out", WebConfig{AllowPrivate: true, Timeout: 200 * time.Millisecond}, `{"url": "` + srv.URL + `/slow"}`,
			tool.CodeTimeout, "took longer than 200ms"},
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
			wantToolError(t, err, tool.CodeSandboxViolation, "allow_private = true")
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
	client := webClient(WebConfig{}.withDefaults())
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
	wantToolError(t, client.CheckRedirect(redirect, make([]*http.Request, 1)), tool.CodeSandboxViolation, "169.254.169.254")
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
