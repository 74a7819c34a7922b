package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Check is one thing /readyz checks: the server is ready only when every
// check's Func returns nil. Func should be quick; it gets a deadline of
// readyTimeout.
type Check struct {
	Name string
	Func func(context.Context) error
}

// readyTimeout bounds one readiness check.
const readyTimeout = 5 * time.Second

// health answers the probes of a container platform.
type health struct {
	stopping atomic.Bool // set when shutdown begins: no longer ready

	mu     sync.Mutex
	failed map[string]bool // the checks failing at the last probe, to log changes only
}

// serveHealth answers /healthz and /readyz. It reports whether r was one
// of them. The probes need no token and accept any Host: a platform probes
// the pod's address, and the answers reveal nothing but the names of the
// checks.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "/healthz" && r.URL.Path != "/readyz" {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return true
	}
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Path == "/healthz" {
		fmt.Fprintln(w, "ok")
		return true
	}
	failing := s.readiness(r.Context())
	if len(failing) > 0 {
		http.Error(w, "not ready: "+strings.Join(failing, ", "), http.StatusServiceUnavailable)
		return true
	}
	fmt.Fprintln(w, "ready")
	return true
}

// readiness runs the checks and returns the names of those failing; a
// change of a check's state is logged, with the error.
func (s *Server) readiness(ctx context.Context) []string {
	var failing []string
	if s.health.stopping.Load() {
		failing = append(failing, "shutting down")
	}
	for _, c := range s.opts.ReadyChecks {
		cctx, cancel := context.WithTimeout(ctx, readyTimeout)
		err := c.Func(cctx)
		cancel()
		if err != nil {
			failing = append(failing, c.Name)
		}
		s.health.mu.Lock()
		if s.health.failed == nil {
			s.health.failed = map[string]bool{}
		}
		was := s.health.failed[c.Name]
		s.health.failed[c.Name] = err != nil
		s.health.mu.Unlock()
		switch {
		case err != nil && !was:
			s.opts.Logger.WarnContext(ctx, "not ready", "check", c.Name, "err", err)
		case err == nil && was:
			s.opts.Logger.InfoContext(ctx, "ready again", "check", c.Name)
		}
	}
	return failing
}
