package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"golang.org/x/net/html/charset"

	"github.com/quiverkit/quiver/sandbox/netproxy"
	"github.com/quiverkit/quiver/tool"
)

//go:embed web_fetch.md
var webFetchDescription string

// WebConfig configures web_fetch and web_search; it is the value of
// [WebConfigKey]. Zero fields take their defaults.
type WebConfig struct {
	// AllowPrivate lets web_fetch reach hosts that resolve to loopback,
	// private, link-local, multicast or unspecified addresses. Off by
	// default: a model that can fetch http://169.254.169.254/ or an admin
	// page on the LAN is a server-side request forgery waiting to happen.
	AllowPrivate bool
	// Timeout bounds one call as a whole: every connection, redirect and
	// byte of the body, and for web_search the backend's answer; 30 s.
	Timeout time.Duration
	// ConnectTimeout bounds making each connection (name lookup, dial, TLS
	// handshake); 10 s, and never more than Timeout.
	ConnectTimeout time.Duration
	MaxBytes       int64  // the most body bytes read; 5 MB
	UserAgent      string // default "quiver-web-fetch/1"
	// SearchURL is web_search's backend: a SearXNG-compatible endpoint
	// answering GET SearchURL?q=QUERY&format=json. Empty: DuckDuckGo
	// (see DuckDuckGoURL). The operator chose it, so it is
	// not subject to the private-address check.
	SearchURL string
	// DuckDuckGoURL is the origin of DuckDuckGo, web_search's backend when
	// SearchURL is empty: web_search asks DuckDuckGoURL/html/ and
	// DuckDuckGoURL/?format=json. Empty: the public service
	// (html.duckduckgo.com and api.duckduckgo.com). Tests and proxies set it.
	DuckDuckGoURL string
}

// WebConfigKey is the dependency key of the web tools' configuration.
var WebConfigKey = tool.Key[WebConfig]{ID: "quiver.web.config", Shared: true,
	Create: func(context.Context) (WebConfig, error) { return WebConfig{}.withDefaults(), nil }}

func (c WebConfig) withDefaults() WebConfig {
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = 10 * time.Second
	}
	c.ConnectTimeout = min(c.ConnectTimeout, c.Timeout)
	if c.MaxBytes <= 0 {
		c.MaxBytes = 5 << 20
	}
	if c.UserAgent == "" {
		c.UserAgent = "quiver-web-fetch/1"
	}
	return c
}

// webMaxRedirects is how many redirects one fetch follows.
const webMaxRedirects = 10

// webDefaultLength is max_length's default, in characters.
const webDefaultLength = 100_000

// WebFetchInput is web_fetch's input.
type WebFetchInput struct {
	URL       string `json:"url" jsonschema:"the http or https URL to fetch" minLength:"1"`
	MaxLength int    `json:"max_length,omitempty" jsonschema:"the most characters of text to return (default 100000); the answer says when the page was cut" minimum:"1" maximum:"1000000"`
}

// WebFetchOutput is web_fetch's typed output.
type WebFetchOutput struct {
	URL         string `json:"url"`
	FinalURL    string `json:"final_url"` // after redirects
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Text        string `json:"text"`      // Markdown for HTML; the body as is for text types
	Truncated   bool   `json:"truncated"` // the body exceeded the byte limit or the text max_length
	Bytes       int64  `json:"bytes"`     // body bytes read
}

// Render is the model's view: a short header, then the text.
func (o *WebFetchOutput) Render() tool.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", o.FinalURL)
	if o.FinalURL != o.URL {
		fmt.Fprintf(&b, "Redirected from: %s\n", o.URL)
	}
	fmt.Fprintf(&b, "Status: %d\nContent-Type: %s\nBytes: %d\n", o.Status, o.ContentType, o.Bytes)
	if o.Truncated {
		b.WriteString("Truncated: yes (the page is longer than what is shown)\n")
	}
	b.WriteString("\n")
	b.WriteString(o.Text)
	return tool.Text(b.String())
}

// WebFetch is a typed reference to web_fetch, for quiver.Call.
var WebFetch = tool.RefTo[WebFetchInput, *WebFetchOutput]("web_fetch")

func newWebFetch() *tool.Tool {
	return tool.Func("web_fetch", webFetchDescription, webFetch, summaryOf("url"),
		tool.InProcess(),
		tool.WithRisk(tool.RiskLow),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, OpenWorld: true}),
		tool.WithSubjects(func(in WebFetchInput) []tool.Subject {
			return []tool.Subject{{Kind: tool.SubjectURL, Value: in.URL}}
		}))
}

func webFetch(ctx context.Context, tc tool.Context, in WebFetchInput) (*WebFetchOutput, error) {
	cfg, err := tool.Resolve(ctx, tc, WebConfigKey)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	gate, err := tool.Resolve(ctx, tc, tool.URLGateKey)
	if err != nil {
		return nil, tool.Errorf(tool.CodeToolNotAllowed, "web_fetch follows URLs only under the toolkit's URL gate (its policy), and none is provided; nothing was fetched")
	}
	u, err := checkFetchURL(in.URL, cfg.AllowPrivate)
	if err != nil {
		return nil, err
	}
	// The pipeline decided on the URL as sent; this is the URL as it will
	// be requested (trimmed, parsed), held to the same rules.
	if err := gate.CheckURL(ctx, u.String()); err != nil {
		return nil, err
	}
	ctx, cancel, deadline := webDeadline(ctx, "web_fetch", cfg.Timeout)
	defer cancel()
	client := webClient(cfg, gate)
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url: %w", err)
	}
	req.Header.Set("User-Agent", cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchError(ctx, in.URL, cfg, deadline, err)
	}
	defer resp.Body.Close()
	out := &WebFetchOutput{URL: in.URL, FinalURL: resp.Request.URL.String(), Status: resp.StatusCode}
	if err := readFetchBody(ctx, resp, cfg, out); err != nil {
		return nil, fetchError(ctx, in.URL, cfg, deadline, err)
	}
	limit := in.MaxLength
	if limit <= 0 {
		limit = webDefaultLength
	}
	if text, cut := truncateRunes(out.Text, limit); cut {
		out.Text, out.Truncated = text, true
	}
	return out, nil
}

// checkFetchURL accepts absolute http and https URLs, and refuses a literal
// address in a blocked range before anything is dialled.
func checkFetchURL(raw string, allowPrivate bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url %q: scheme %q is not supported; use an http:// or https:// URL", raw, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url %q: no host", raw)
	}
	if u.User != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url %q: credentials in URLs are not sent; remove the user:password@ part", raw)
	}
	if addr, err := netip.ParseAddr(u.Hostname()); err == nil && !allowPrivate {
		if why := blockedAddr(addr); why != "" {
			return nil, blockedError(raw, addr, why)
		}
	}
	return u, nil
}

// blockedAddr names the range addr is in when web_fetch must not reach it:
// the proxy's notion of a non-public address, one for both.
func blockedAddr(addr netip.Addr) string { return netproxy.NonPublic(addr) }

// errBlocked marks a dial refused by the address check.
type errBlocked struct {
	host string
	addr netip.Addr
	why  string
}

func (e *errBlocked) Error() string {
	return fmt.Sprintf("%s resolves to %s, a %s address", e.host, e.addr, e.why)
}

// blockedError names the URL refused (for a refusal at dial time, the URL
// asked for, though a redirect from it may be what was refused).
func blockedError(target string, addr netip.Addr, why string) *tool.Error {
	return tool.Errorf(tool.CodeNetworkDenied,
		"refused to fetch %s: its host is at %s, a %s address; web_fetch only reaches public hosts unless the operator sets [web] allow_private = true in quiver.toml",
		target, addr, why)
}

// webClient returns a client whose every connection, redirects included, is
// checked at dial time against the address actually dialled: checking the
// name before the request would let DNS rebinding swap in 127.0.0.1 between
// the check and the connect. No proxy is used, for the same reason. Every
// redirect is held to the URL check and to the policy (see checkRedirect).
//
// The context bounds the whole fetch (webDeadline); the only other limit is
// ConnectTimeout, on the dial and the TLS handshake, so that a timeout names
// one of two limits (see webTimeoutError).
func webClient(cfg WebConfig, gate tool.URLGate) *http.Client {
	var control func(context.Context, string, string, syscall.RawConn) error
	if !cfg.AllowPrivate {
		control = func(_ context.Context, _, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("web_fetch: unexpected dial address %q: %w", address, err)
			}
			if why := blockedAddr(ap.Addr()); why != "" {
				return &errBlocked{host: address, addr: ap.Addr(), why: why}
			}
			return nil
		}
	}
	return &http.Client{Transport: webTransport(cfg, control), CheckRedirect: func(req *http.Request, via []*http.Request) error {
		return checkRedirect(req, via, cfg, gate)
	}}
}

// webTransport bounds the dial and the TLS handshake of each connection by
// ConnectTimeout, and nothing else: the context bounds the whole call.
// control, when set, vets each address before it is dialled. No proxy.
func webTransport(cfg WebConfig, control func(context.Context, string, string, syscall.RawConn) error) *http.Transport {
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, ControlContext: control}
	return &http.Transport{
		DialContext:         dialer.DialContext,
		TLSHandshakeTimeout: cfg.ConnectTimeout,
		MaxIdleConns:        2,
		IdleConnTimeout:     5 * time.Second,
		ForceAttemptHTTP2:   true,
	}
}

// checkRedirect holds every hop to what the first URL was held to: the URL
// check (scheme, credentials, literal addresses; the dial checks resolved
// ones) and the policy, through gate, so that a web_fetch(domain:X) deny
// holds for a redirect to X. A loop, or more than webMaxRedirects
// redirects, is an error.
func checkRedirect(req *http.Request, via []*http.Request, cfg WebConfig, gate tool.URLGate) error {
	hop, from := req.URL.String(), via[len(via)-1].URL.String()
	if len(via) > webMaxRedirects {
		return tool.Errorf(tool.CodeExecutionFailed, "stopped after %d redirects (the next, from %s, was to %s)", webMaxRedirects, from, hop)
	}
	for _, r := range via {
		if r.URL.String() == hop {
			return tool.Errorf(tool.CodeExecutionFailed, "redirect loop: %s redirects back to %s, fetched before", from, hop)
		}
	}
	_, err := checkFetchURL(hop, cfg.AllowPrivate)
	if err == nil {
		err = gate.CheckURL(req.Context(), hop)
	}
	if err != nil {
		return hopError(from, err)
	}
	return nil
}

// hopError says which redirect a refusal is about. Its code is kept, except
// that a bad redirect target is the server's doing, not an argument error.
func hopError(from string, err error) *tool.Error {
	te := tool.AsError(err)
	code := te.Code
	if code == tool.CodeInvalidArguments {
		code = tool.CodeExecutionFailed
	}
	out := tool.Errorf(code, "%s redirected: %s", from, te.Message)
	out.Err, out.Details = te, maps.Clone(te.Details)
	return out
}

// fetchError turns a failed request into an error the model can act on,
// naming the URL that failed: the one asked for, or the redirect target.
func fetchError(ctx context.Context, raw string, cfg WebConfig, deadline string, err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	target := raw
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL != "" {
		target = ue.URL
	}
	var blocked *errBlocked
	if errors.As(err, &blocked) {
		if target != raw {
			target += " (redirected from " + raw + ")"
		}
		return blockedError(target, blocked.addr, blocked.why)
	}
	if timedOut(err) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return webTimeoutError(ctx, "fetching "+target, cfg, deadline)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return tool.Errorf(tool.CodeCancelled, "fetching %s: cancelled", target)
	}
	return tool.Errorf(tool.CodeExecutionFailed, "fetching %s: %w", target, err)
}

// webDeadline bounds ctx by the tool's limit and describes the deadline in
// force, for messages: the tool's own, or the caller's when that comes
// first (a toolkit's WithTimeout, an agent's budget).
func webDeadline(ctx context.Context, toolName string, limit time.Duration) (context.Context, context.CancelFunc, string) {
	desc := fmt.Sprintf("%s's limit of %s for one call", toolName, limit)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < limit {
		desc = fmt.Sprintf("the call's deadline (%s)", time.Until(dl).Round(time.Millisecond))
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	return ctx, cancel, desc
}

// timedOut reports whether err is a timeout, whichever layer noticed it: a
// context's deadline, a socket's deadline, or a net.Error that says so
// (the HTTP client's and transport's own timers, a DNS lookup).
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout()
}

// webTimeoutError is the TIMEOUT of a web call, naming the limit it ran
// into. Once the context's deadline has passed, that is the limit (every
// deadline below derives from it, so a socket timeout at that moment is the
// same limit seen by the socket); before it, the only other limit is the
// connect limit.
func webTimeoutError(ctx context.Context, what string, cfg WebConfig, deadline string) *tool.Error {
	if dl, ok := ctx.Deadline(); ctx.Err() != nil || ok && !time.Now().Before(dl) {
		return tool.Errorf(tool.CodeTimeout, "%s ran into %s; try again later", what, deadline)
	}
	return tool.Errorf(tool.CodeTimeout, "%s: no connection within the connect limit of %s (name lookup, dial and TLS handshake); the host may be down or unreachable", what, cfg.ConnectTimeout)
}

// readFetchBody reads at most cfg.MaxBytes of the body and sets the output's
// content type, text, byte count and truncation.
func readFetchBody(ctx context.Context, resp *http.Response, cfg WebConfig, out *WebFetchOutput) error {
	head := resp.Header.Get("Content-Type")
	body, err := io.ReadAll(io.LimitReader(resp.Body, cfg.MaxBytes+1))
	if err != nil {
		return err
	}
	if int64(len(body)) > cfg.MaxBytes {
		body, out.Truncated = body[:cfg.MaxBytes], true
	}
	out.Bytes = int64(len(body))
	if head == "" {
		head = http.DetectContentType(body)
	}
	mediaType, params, err := mime.ParseMediaType(head)
	if err != nil {
		mediaType = strings.ToLower(strings.TrimSpace(strings.Split(head, ";")[0]))
	}
	out.ContentType = mediaType
	kind := textKind(mediaType)
	if kind == "" {
		return tool.Errorf(tool.CodeExecutionFailed,
			"%s is %s, which web_fetch does not return: it fetches HTML and text (plain, Markdown, JSON, XML) only", out.FinalURL, mediaType)
	}
	text, err := decodeText(body, params["charset"], head)
	if err != nil {
		return err
	}
	if kind == "html" {
		md, err := htmlConverter().ConvertString(text, converterOptions(ctx, out.FinalURL)...)
		if err != nil {
			return fmt.Errorf("converting HTML to Markdown: %w", err)
		}
		text = md
	}
	out.Text = text
	return nil
}

// textKind says how a media type is returned: "html" (converted to
// Markdown), "text" (as is), or "" (refused as binary).
func textKind(mediaType string) string {
	switch {
	case mediaType == "text/html", mediaType == "application/xhtml+xml":
		return "html"
	case strings.HasPrefix(mediaType, "text/"),
		strings.HasSuffix(mediaType, "+json"), strings.HasSuffix(mediaType, "+xml"):
		return "text"
	}
	switch mediaType {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql", "application/ld+json":
		return "text"
	}
	return ""
}

// decodeText converts body to UTF-8 from the declared (or sniffed) charset;
// invalid sequences become U+FFFD rather than failing the call.
func decodeText(body []byte, declared, contentType string) (string, error) {
	if declared == "" && utf8.Valid(body) {
		return string(body), nil
	}
	r, err := charset.NewReader(strings.NewReader(string(body)), contentType)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD"), nil
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("decoding %s: %w", contentType, err)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), nil
}

// truncateRunes cuts s to at most n characters.
func truncateRunes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i], true
		}
		count++
	}
	return s, false
}

// htmlConverter turns HTML into Markdown: the library's defaults (which
// drop <script>, <style>, <head>, <iframe>...), and <svg> dropped as well:
// its text is drawing labels, icon titles and embedded code, not the
// page's prose. The converter is safe for concurrent use. It is built on
// first use, not when the package is initialised (start-up cost).
var htmlConverter = sync.OnceValue(func() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin()))
	conv.Register.TagType("svg", converter.TagTypeRemove, converter.PriorityStandard)
	return conv
})

// converterOptions make relative links absolute against the page's URL and
// stop the conversion when the call is cancelled.
func converterOptions(ctx context.Context, pageURL string) []converter.ConvertOptionFunc {
	return []converter.ConvertOptionFunc{converter.WithContext(ctx), converter.WithDomain(pageURL)}
}
