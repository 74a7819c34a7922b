package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html/charset"

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
	Timeout      time.Duration // per request, redirects included; 30 s
	MaxBytes     int64         // the most body bytes read; 5 MB
	UserAgent    string        // default "quiver-web-fetch/1"
	// SearchURL is web_search's backend: a SearXNG-compatible endpoint
	// answering GET SearchURL?q=QUERY&format=json. Empty: web_search fails
	// with a message saying how to set it. The operator chose it, so it is
	// not subject to the private-address check.
	SearchURL string
}

// WebConfigKey is the dependency key of the web tools' configuration.
var WebConfigKey = tool.Key[WebConfig]{ID: "quiver.web.config", Shared: true,
	Create: func(context.Context) (WebConfig, error) { return WebConfig{}.withDefaults(), nil }}

func (c WebConfig) withDefaults() WebConfig {
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 5 << 20
	}
	if c.UserAgent == "" {
		c.UserAgent = "quiver-web-fetch/1"
	}
	return c
}

// webMaxRedirects is how many redirects one fetch follows.
const webMaxRedirects = 5

// webDefaultLength is max_length's default, in characters.
const webDefaultLength = 100_000

// WebFetchInput is web_fetch's input.
type WebFetchInput struct {
	URL       string `json:"url" jsonschema:"the http or https URL to fetch" minLength:"1"`
	MaxLength int    `json:"max_length,omitempty" jsonschema:"the most characters of text to return (default 100000)" minimum:"1" maximum:"1000000"`
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

func init() { register(newWebFetch) }

func newWebFetch() *tool.Tool {
	return tool.Func("web_fetch", webFetchDescription, webFetch,
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
	u, err := checkFetchURL(in.URL, cfg.AllowPrivate)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	client := webClient(cfg)
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url: %v", err)
	}
	req.Header.Set("User-Agent", cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchError(ctx, in.URL, cfg, err)
	}
	defer resp.Body.Close()
	out := &WebFetchOutput{URL: in.URL, FinalURL: resp.Request.URL.String(), Status: resp.StatusCode}
	if err := readFetchBody(ctx, resp, cfg, out); err != nil {
		return nil, fetchError(ctx, in.URL, cfg, err)
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
		return nil, tool.Errorf(tool.CodeInvalidArguments, "url %q: %v", raw, err)
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

// blockedAddr names the range addr is in when web_fetch must not reach it.
func blockedAddr(addr netip.Addr) string {
	addr = addr.Unmap()
	switch {
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
	}
	return ""
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

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
	return tool.Errorf(tool.CodeSandboxViolation,
		"refused to fetch %s: its host is at %s, a %s address; web_fetch only reaches public hosts unless the operator sets [web] allow_private = true in quiver.toml",
		target, addr, why)
}

// webClient returns a client whose every connection, redirects included, is
// checked at dial time against the address actually dialled: checking the
// name before the request would let DNS rebinding swap in 127.0.0.1 between
// the check and the connect. No proxy is used, for the same reason.
func webClient(cfg WebConfig) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !cfg.AllowPrivate {
		dialer.ControlContext = func(_ context.Context, _, address string, _ syscall.RawConn) error {
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
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          2,
		IdleConnTimeout:       5 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > webMaxRedirects {
			return fmt.Errorf("stopped after %d redirects", webMaxRedirects)
		}
		_, err := checkFetchURL(req.URL.String(), cfg.AllowPrivate)
		return err
	}}
}

// fetchError turns a failed request into an error the model can act on.
func fetchError(ctx context.Context, raw string, cfg WebConfig, err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	var blocked *errBlocked
	if errors.As(err, &blocked) {
		return blockedError(raw, blocked.addr, blocked.why)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return tool.Errorf(tool.CodeTimeout, "fetching %s took longer than %s; try again later or fetch a smaller page", raw, cfg.Timeout)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return tool.Errorf(tool.CodeCancelled, "fetching %s: cancelled", raw)
	}
	return tool.Errorf(tool.CodeExecutionFailed, "fetching %s: %v", raw, err)
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
		md, err := htmltomarkdown.ConvertString(text, converterOptions(ctx, out.FinalURL)...)
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

// converterOptions make relative links absolute against the page's URL and
// stop the conversion when the call is cancelled.
func converterOptions(ctx context.Context, pageURL string) []converter.ConvertOptionFunc {
	return []converter.ConvertOptionFunc{converter.WithContext(ctx), converter.WithDomain(pageURL)}
}
