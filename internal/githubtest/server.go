package githubtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The routes the fake answers, as [Request.Route] names them. Each is one
// operation of GitHub's OpenAPI description (its operationId in the
// comment).
const (
	RouteRepo      = "repo"      // repos/get
	RouteBranch    = "branch"    // repos/get-branch
	RouteRef       = "ref"       // git/get-ref
	RouteCommit    = "commit"    // repos/get-commit (also the application/vnd.github.sha form)
	RouteGitCommit = "gitcommit" // git/get-commit
	RouteTree      = "tree"      // git/get-tree
	RouteBlob      = "blob"      // git/get-blob
	RouteContents  = "contents"  // repos/get-content
	RouteSearch    = "search"    // search/code
	RouteRateLimit = "rate_limit"
	RouteUnknown   = "unknown"
)

// Token is the token the fake accepts unless [Options.Token] says another.
const Token = "ghp_githubtest0000000000000000000000000000"

// Options configure a fake.
type Options struct {
	Token     string           // the token it accepts; Token when empty
	Now       func() time.Time // its clock, for rate-limit windows; time.Now when nil
	TreeLimit int              // entries in a recursive tree before it is truncated; 100,000 (GitHub's) when 0
	DirLimit  int              // entries in a non-recursive tree before it is truncated; none when 0
}

// Request is one request the fake answered.
type Request struct {
	Route       string
	Method      string
	Path        string // escaped, without the query
	Query       string
	Accept      string
	IfNoneMatch string
	Status      int
}

// Server is a loopback fake of GitHub's REST API over repositories built
// from file sets. It is safe for concurrent use.
type Server struct {
	// URL is the API's base URL: what a client takes as api_url.
	URL string

	opts Options
	srv  *httptest.Server
	mu   sync.Mutex
	objs store
	seq  int

	repos    map[string]*repo // by "owner/name", lower case
	limits   map[string]*RateLimit
	failures []Failure
	log      []Request
}

type repo struct {
	id            int
	owner, name   string
	defaultBranch string
	private       bool
	time          time.Time         // the time of the repository's first commit; each push is a second later
	branches      map[string]string // name: commit sha
	tags          map[string]string
}

// New starts a fake, closed when the test ends.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Token == "" {
		opts.Token = Token
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.TreeLimit == 0 {
		opts.TreeLimit = 100_000
	}
	s := &Server{opts: opts, objs: store{}, repos: map[string]*repo{}, limits: map[string]*RateLimit{}}
	s.srv = httptest.NewServer(s.routes())
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Repo is a repository to serve.
type Repo struct {
	Owner, Name   string
	DefaultBranch string    // "main" when empty
	Private       bool      // a private repository answers 404 to a request without a token, as GitHub does
	Files         []File    // the default branch's files
	Time          time.Time // its commit's time; 2023-11-14T22:13:20Z when zero. A Push is a second later each
}

// AddRepo serves r and returns the commit its default branch points to.
func (s *Server) AddRepo(r Repo) (string, error) {
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	if r.Time.IsZero() {
		r.Time = time.Unix(1_700_000_000, 0)
	}
	s.mu.Lock()
	rp := &repo{id: len(s.repos) + 1, owner: r.Owner, name: r.Name, defaultBranch: r.DefaultBranch, private: r.Private, time: r.Time.Add(-time.Second),
		branches: map[string]string{}, tags: map[string]string{}}
	s.repos[strings.ToLower(r.Owner+"/"+r.Name)] = rp
	s.mu.Unlock()
	return s.Push(r.Owner+"/"+r.Name, r.DefaultBranch, r.Files)
}

// Push points branch of the repository fullName ("owner/name") at a new
// commit of files, and returns the commit's sha.
func (s *Server) Push(fullName, branch string, files []File) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[strings.ToLower(fullName)]
	if rp == nil {
		return "", fmt.Errorf("githubtest: no repository %s", fullName)
	}
	s.seq++
	rp.time = rp.time.Add(time.Second)
	sha, err := s.objs.commit(files, rp.time, s.seq)
	if err != nil {
		return "", err
	}
	rp.branches[branch] = sha
	return sha, nil
}

// Tag points tag of the repository fullName at commit.
func (s *Server) Tag(fullName, tag, commit string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[strings.ToLower(fullName)].tags[tag] = commit
}

// RateLimit is the state of one of GitHub's primary rate limits.
type RateLimit struct {
	Resource  string // "core" or "search"
	Limit     int
	Remaining int
	Reset     time.Time // when Remaining goes back to Limit
	Status    int       // the status of a request over the limit: 403 (GitHub's usual) when 0, or 429
}

// SetRateLimit sets the state of a primary rate limit.
func (s *Server) SetRateLimit(l RateLimit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits[l.Resource] = &l
}

// Failure makes the fake refuse requests as GitHub's secondary rate limits
// (or a faulty server) do.
type Failure struct {
	Route      string // the route it applies to; every route when empty
	Times      int    // how many requests it refuses; 1 when 0
	Status     int    // 403 when 0; 429 and 5xx are GitHub's other answers
	RetryAfter int    // the Retry-After header, in seconds; none when 0
	Secondary  bool   // the body names the secondary rate limit, as GitHub's does
}

// Fail queues a failure: the next matching requests get it.
func (s *Server) Fail(f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times == 0 {
		f.Times = 1
	}
	if f.Status == 0 {
		f.Status = http.StatusForbidden
	}
	s.failures = append(s.failures, f)
}

// Requests returns the requests answered so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Count returns how many requests route has answered with any status.
func (s *Server) Count(route string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Route == route {
			n++
		}
	}
	return n
}

// Counts returns the requests answered per route and status, as
// "tree 200": n.
func (s *Server) Counts() map[string]int {
	m := map[string]int{}
	for _, r := range s.Requests() {
		m[r.Route+" "+strconv.Itoa(r.Status)]++
	}
	return m
}

// ResetLog forgets the requests answered so far.
func (s *Server) ResetLog() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}

// reply is an answer before it is written: the wrapper adds the rate-limit
// headers and the ETag, and turns a match of If-None-Match into a 304.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func jsonReply(status int, v any) reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return reply{status: status, header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, body: b}
}

// errorReply is GitHub's basic-error shape.
func errorReply(status int, message, doc string) reply {
	return jsonReply(status, map[string]any{"message": message, "documentation_url": doc, "status": strconv.Itoa(status)})
}

func notFound() reply {
	return errorReply(http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
}

type handler func(r *http.Request, rp *repo) reply

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	repoRoutes := []struct {
		pattern, route string
		h              handler
	}{
		{"GET /repos/{owner}/{repo}", RouteRepo, s.getRepo},
		{"GET /repos/{owner}/{repo}/branches/{branch...}", RouteBranch, s.getBranch},
		{"GET /repos/{owner}/{repo}/git/ref/{ref...}", RouteRef, s.getRef},
		{"GET /repos/{owner}/{repo}/commits/{ref...}", RouteCommit, s.getCommit},
		{"GET /repos/{owner}/{repo}/git/commits/{sha}", RouteGitCommit, s.getGitCommit},
		{"GET /repos/{owner}/{repo}/git/trees/{sha...}", RouteTree, s.getTree},
		{"GET /repos/{owner}/{repo}/git/blobs/{sha}", RouteBlob, s.getBlob},
		{"GET /repos/{owner}/{repo}/contents/{path...}", RouteContents, s.getContents},
		{"GET /repos/{owner}/{repo}/contents", RouteContents, s.getContents},
	}
	for _, rr := range repoRoutes {
		mux.Handle(rr.pattern, s.serve(rr.route, "core", rr.h))
	}
	mux.Handle("GET /search/code", s.serve(RouteSearch, "search", s.searchCode))
	mux.Handle("GET /rate_limit", s.serve(RouteRateLimit, "", s.rateLimit))
	mux.Handle("/", s.serve(RouteUnknown, "core", func(*http.Request, *repo) reply { return notFound() }))
	return mux
}

// serve answers one request of route: authentication, queued failures, the
// primary rate limit, the handler, then the conditional request.
func (s *Server) serve(route, resource string, h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep := s.answer(route, resource, r, h)
		// Logged before the answer is written: a client that has read it
		// may count the requests at once, and must find this one.
		s.mu.Lock()
		s.log = append(s.log, Request{Route: route, Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
			Accept: r.Header.Get("Accept"), IfNoneMatch: r.Header.Get("If-None-Match"), Status: rep.status})
		s.mu.Unlock()
		for k, v := range rep.header {
			w.Header()[k] = v
		}
		w.Header().Set("X-GitHub-Api-Version-Selected", "2022-11-28")
		w.WriteHeader(rep.status)
		w.Write(rep.body)
	})
}

func (s *Server) answer(route, resource string, r *http.Request, h handler) reply {
	authed, rep, ok := s.authenticate(r)
	if !ok {
		return rep
	}
	if rep, failed := s.injectedFailure(route); failed {
		return rep
	}
	s.mu.Lock()
	limit := s.limit(resource)
	if limit != nil && limit.Remaining <= 0 {
		rep := errorReply(cmpOr(limit.Status, http.StatusForbidden), "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID.",
			"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api")
		s.rateHeaders(rep.header, limit)
		s.mu.Unlock()
		return rep
	}
	s.mu.Unlock()

	var rp *repo
	if owner := r.PathValue("owner"); owner != "" {
		s.mu.Lock()
		rp = s.repos[strings.ToLower(owner+"/"+r.PathValue("repo"))]
		s.mu.Unlock()
		if rp == nil || (rp.private && !authed) {
			rep := notFound()
			s.count(resource, rep)
			return rep
		}
	}
	if route == RouteSearch && !authed {
		return errorReply(http.StatusUnauthorized, "Requires authentication", "https://docs.github.com/rest/search/search#search-code")
	}
	s.mu.Lock()
	rep = h(r, rp)
	s.mu.Unlock()
	if rep.status == http.StatusOK && r.Method == http.MethodGet {
		sum := sha256.Sum256(append([]byte(r.Header.Get("Accept")+"\n"), rep.body...))
		etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
		rep.header.Set("ETag", etag)
		if matches(r.Header.Get("If-None-Match"), etag) {
			// A 304 does not count against the primary rate limit.
			rep = reply{status: http.StatusNotModified, header: http.Header{"ETag": {etag}}}
			s.mu.Lock()
			if l := s.limit(resource); l != nil {
				s.rateHeaders(rep.header, l)
			}
			s.mu.Unlock()
			return rep
		}
	}
	s.count(resource, rep)
	return rep
}

// count spends one request of resource's primary limit on rep.
func (s *Server) count(resource string, rep reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.limit(resource); l != nil {
		l.Remaining--
		s.rateHeaders(rep.header, l)
	}
}

// authenticate checks the Authorization header: none is anonymous (a
// private repository is then not found, search needs a token), a wrong
// one is 401 Bad credentials.
func (s *Server) authenticate(r *http.Request) (authed bool, rep reply, ok bool) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return false, reply{}, true
	}
	scheme, tok, _ := strings.Cut(auth, " ")
	if (strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "token")) && tok == s.opts.Token {
		return true, reply{}, true
	}
	return false, errorReply(http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest"), false
}

func (s *Server) injectedFailure(route string) (reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.failures, func(f Failure) bool { return f.Route == "" || f.Route == route })
	if i < 0 {
		return reply{}, false
	}
	f := s.failures[i]
	if s.failures[i].Times--; s.failures[i].Times == 0 {
		s.failures = slices.Delete(s.failures, i, i+1)
	}
	var rep reply
	if f.Secondary {
		rep = errorReply(f.Status, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
			"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits")
	} else {
		rep = errorReply(f.Status, http.StatusText(f.Status), "https://docs.github.com/rest")
	}
	if f.RetryAfter > 0 {
		rep.header.Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	return rep, true
}

// limit returns resource's primary limit, refilled when its window has
// passed; nil for a route outside every limit. s.mu is held.
func (s *Server) limit(resource string) *RateLimit {
	if resource == "" {
		return nil
	}
	now := s.opts.Now()
	l := s.limits[resource]
	if l == nil {
		l = &RateLimit{Resource: resource, Limit: 5000}
		if resource == "search" {
			l.Limit = 30
		}
		s.limits[resource] = l
	}
	if !now.Before(l.Reset) {
		l.Remaining = l.Limit
		l.Reset = now.Add(time.Hour)
		if resource == "search" {
			l.Reset = now.Add(time.Minute)
		}
	}
	return l
}

func (s *Server) rateHeaders(h http.Header, l *RateLimit) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(l.Remaining, 0)))
	h.Set("X-RateLimit-Used", strconv.Itoa(l.Limit-max(l.Remaining, 0)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(l.Reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", l.Resource)
}

// matches reports whether an If-None-Match header names etag (weakly, as
// RFC 9110 compares for GET).
func matches(ifNoneMatch, etag string) bool {
	weak := func(t string) string { return strings.TrimPrefix(strings.TrimSpace(t), "W/") }
	for t := range strings.SplitSeq(ifNoneMatch, ",") {
		if strings.TrimSpace(t) == "*" || weak(t) == weak(etag) {
			return true
		}
	}
	return false
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}
