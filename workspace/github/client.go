package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v75/github"
	"golang.org/x/sync/singleflight"

	"github.com/quiverkit/quiver/tool"
)

// NoConnection is the message of every NO_CONNECTION error: specification
// 004's words, verbatim.
const NoConnection = "No active GitHub connection found"

// DefaultAPIURL is github.com's API.
const DefaultAPIURL = "https://api.github.com/"

// Config says which repository to read and how.
type Config struct {
	Repo   string // "owner/name"
	Ref    string // a branch, tag or commit sha; the repository's default branch when empty
	Token  string // the token; none is NO_CONNECTION at the first call
	APIURL string // DefaultAPIURL when empty; GitHub Enterprise's is https://HOST/api/v3

	// CacheDir holds the ETags of conditional requests and their answers,
	// shared by every process of the user; os.UserCacheDir()/quiver/github
	// when empty, none when "off".
	CacheDir string
	// RefreshAfter is how old a resolved ref may get before a call checks
	// it again (conditionally); 1 minute when 0, never when negative.
	RefreshAfter time.Duration
	// MaxWait is the longest wait for a rate limit or a retry; longer is
	// RATE_LIMITED. 20 seconds when 0.
	MaxWait time.Duration
	// MaxRetries bounds the retries of one request; 4 when 0.
	MaxRetries int
	// MaxTreeRequests bounds the requests of one walk of a truncated tree;
	// 1,000 when 0.
	MaxTreeRequests int
	// BlobCacheBytes bounds the blobs kept in memory; 128 MiB when 0.
	BlobCacheBytes int64
	// SearchFetches and SearchBytes bound the blobs one search
	// (grep_search, search_code) fetches: 300 and 32 MiB when 0.
	SearchFetches int
	SearchBytes   int64

	HTTPClient *http.Client                                     // http.DefaultClient when nil
	Now        func() time.Time                                 // time.Now when nil
	Sleep      func(ctx context.Context, d time.Duration) error // a timer that the context cancels when nil
}

// Client reads one repository. It is safe for concurrent use.
type Client struct {
	cfg         Config
	owner, name string
	gh          *gh.Client
	etags       *etagCache

	mu        sync.Mutex
	blocked   map[string]time.Time // resource: no request before this
	head      resolved
	trees     map[string][]Entry // tree sha: its entries
	complete  map[string]bool    // tree shas whose whole subtree is in trees
	truncated map[string]bool    // tree shas whose recursive listing GitHub truncates
	blobs     *lru
	flight    singleflight.Group
}

// resolved is the commit the ref named when last asked.
type resolved struct {
	commit Commit
	at     time.Time
}

// New returns a client for cfg; it sends no request.
func New(cfg Config) (*Client, error) {
	owner, name, ok := strings.Cut(cfg.Repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "repo %q: want owner/name", cfg.Repo)
	}
	cfg = withDefaults(cfg)
	base, err := url.Parse(cfg.APIURL)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "api_url %q: want an http(s) URL", cfg.APIURL)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	client := gh.NewClient(cfg.HTTPClient)
	if cfg.Token != "" {
		client = client.WithAuthToken(cfg.Token)
	}
	client.BaseURL = base
	client.DisableRateLimitCheck = true
	c := &Client{cfg: cfg, owner: owner, name: name, gh: client, blocked: map[string]time.Time{},
		trees: map[string][]Entry{}, complete: map[string]bool{}, truncated: map[string]bool{}, blobs: newLRU(cfg.BlobCacheBytes)}
	if cfg.CacheDir != "off" {
		c.etags = &etagCache{dir: cfg.CacheDir, scope: scopeOf(base.String(), cfg.Token)}
	}
	return c, nil
}

func withDefaults(cfg Config) Config {
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	if cfg.CacheDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			cfg.CacheDir = filepath.Join(d, "quiver", "github")
		} else {
			cfg.CacheDir = "off"
		}
	}
	if cfg.RefreshAfter == 0 {
		cfg.RefreshAfter = time.Minute
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = 20 * time.Second
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 4
	}
	if cfg.MaxTreeRequests == 0 {
		cfg.MaxTreeRequests = 1000
	}
	if cfg.BlobCacheBytes == 0 {
		cfg.BlobCacheBytes = 128 << 20
	}
	if cfg.SearchFetches == 0 {
		cfg.SearchFetches = 300
	}
	if cfg.SearchBytes == 0 {
		cfg.SearchBytes = 32 << 20
	}
	if cfg.HTTPClient == nil {
		// A request that hangs ends; the retries are bounded too.
		cfg.HTTPClient = &http.Client{Timeout: time.Minute}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	return cfg
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Repo returns "owner/name".
func (c *Client) Repo() string { return c.owner + "/" + c.name }

// noConnection is the NO_CONNECTION error, reason saying which case.
func noConnection(reason string, cause error) *tool.Error {
	return (&tool.Error{Code: tool.CodeNoConnection, Message: NoConnection, Err: cause}).WithDetail("reason", reason)
}

// call sends one request through send, retrying what GitHub asks to be
// retried within MaxWait, and turns GitHub's refusals into *tool.Error.
// resource is the rate limit the request spends ("core", "search"); what
// names what was asked for, for NOT_FOUND.
func (c *Client) call(ctx context.Context, resource, what string, send func() (*gh.Response, error)) error {
	if c.cfg.Token == "" {
		return noConnection("no token: set the variable [workspace] token_env names", nil)
	}
	backoff := time.Second
	for attempt := 0; ; attempt++ {
		if err := c.waitBlocked(ctx, resource); err != nil {
			return err
		}
		resp, err := send()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return tool.Errorf(tool.CodeCancelled, "GitHub request for %s: %w", what, ctx.Err())
		}
		wait, terr := c.classify(resource, what, resp, err)
		if terr != nil {
			return terr
		}
		if wait == 0 {
			wait, backoff = backoff, backoff*2
		}
		if attempt >= c.cfg.MaxRetries {
			if resp != nil && resp.StatusCode >= 500 {
				return &tool.Error{Code: tool.CodeExecutionFailed, Err: err,
					Message: fmt.Sprintf("GitHub answered %d to %d tries for %s", resp.StatusCode, attempt+1, what)}
			}
			return c.limited(resource, c.cfg.Now().Add(wait), fmt.Sprintf("GitHub refused %d tries for %s", attempt+1, what), err)
		}
		if err := c.cfg.Sleep(ctx, wait); err != nil {
			return tool.Errorf(tool.CodeCancelled, "waiting to retry %s: %w", what, err)
		}
	}
}

// classify says what to do about a failed request: wait and retry (a
// positive wait; 0 for the backoff's), or give up with the error.
func (c *Client) classify(resource, what string, resp *gh.Response, err error) (time.Duration, error) {
	now := c.cfg.Now()
	var rle *gh.RateLimitError
	var abuse *gh.AbuseRateLimitError
	var er *gh.ErrorResponse
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	switch {
	case errors.As(err, &rle):
		return c.waitUntil(resource, rle.Rate.Reset.Time.Add(time.Second), "GitHub's rate limit is spent", err)
	case errors.As(err, &abuse):
		if ra := abuse.GetRetryAfter(); ra > 0 {
			return c.waitUntil(resource, now.Add(ra), "GitHub's secondary rate limit", err)
		}
		// GitHub asks for a minute at least when it gives no Retry-After.
		return c.waitUntil(resource, now.Add(time.Minute), "GitHub's secondary rate limit", err)
	case status == http.StatusTooManyRequests:
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			if d, perr := time.ParseDuration(ra + "s"); perr == nil {
				return c.waitUntil(resource, now.Add(d), "GitHub's secondary rate limit", err)
			}
		}
		if resp.Rate.Remaining == 0 && !resp.Rate.Reset.IsZero() {
			return c.waitUntil(resource, resp.Rate.Reset.Time.Add(time.Second), "GitHub's rate limit is spent", err)
		}
		return c.waitUntil(resource, now.Add(time.Minute), "GitHub's secondary rate limit", err)
	case status >= 500:
		return 0, nil
	case status == http.StatusUnauthorized:
		return 0, noConnection("GitHub refused the token (401 Bad credentials)", err)
	case status == http.StatusForbidden:
		msg := ""
		if errors.As(err, &er) {
			msg = er.Message
		}
		return 0, noConnection(fmt.Sprintf("the token may not read %s (403 %s)", c.Repo(), msg), err)
	case status == http.StatusNotFound || status == http.StatusUnprocessableEntity:
		return 0, &tool.Error{Code: tool.CodeNotFound, Message: fmt.Sprintf("%s: not found in %s", what, c.Repo()), Err: err}
	}
	return 0, &tool.Error{Code: tool.CodeExecutionFailed, Message: fmt.Sprintf("GitHub request for %s: %v", what, err), Err: err}
}

// waitUntil is a wait until t when it is within MaxWait, else the
// RATE_LIMITED error, remembered so that no request is sent before t.
func (c *Client) waitUntil(resource string, t time.Time, why string, err error) (time.Duration, error) {
	wait := t.Sub(c.cfg.Now())
	if wait <= 0 {
		wait = time.Second
	}
	if wait <= c.cfg.MaxWait {
		return wait, nil
	}
	return 0, c.limited(resource, t, why, err)
}

func (c *Client) limited(resource string, t time.Time, why string, err error) *tool.Error {
	c.mu.Lock()
	if t.After(c.blocked[resource]) {
		c.blocked[resource] = t
	}
	c.mu.Unlock()
	reset := t.UTC().Truncate(time.Second).Format(time.RFC3339)
	return (&tool.Error{Code: tool.CodeRateLimited, Retriable: true, Err: err,
		Message: fmt.Sprintf("%s: try again after %s", why, reset)}).WithDetail("reset_at", reset).WithDetail("resource", resource)
}

// waitBlocked waits out a rate limit known to end within MaxWait, and
// refuses without a request one that ends later.
func (c *Client) waitBlocked(ctx context.Context, resource string) error {
	c.mu.Lock()
	until := c.blocked[resource]
	c.mu.Unlock()
	wait := until.Sub(c.cfg.Now())
	switch {
	case wait <= 0:
		return nil
	case wait > c.cfg.MaxWait:
		return c.limited(resource, until, "GitHub's rate limit is spent", nil)
	}
	if err := c.cfg.Sleep(ctx, wait); err != nil {
		return tool.Errorf(tool.CodeCancelled, "waiting for GitHub's rate limit: %w", err)
	}
	return nil
}
