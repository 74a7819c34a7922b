package streamtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Reply is one HTTP answer of a [Server].
type Reply struct {
	Status      int    // default 200
	ContentType string // default text/event-stream for 200, application/json otherwise
	Header      http.Header
	Body        []byte
	// Cut aborts the connection after Body is sent, without ending the
	// response: what a client sees when the network drops mid-stream.
	Cut bool
	// Hang sends Body, then waits until the client goes away.
	Hang bool
}

// Request is what a [Server] received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// Server answers every request with the next of its replies (the last one
// repeats) and records the requests.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []Reply
	next     int
	requests []Request
}

// NewServer starts a Server on loopback; it closes when the test ends.
func NewServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	rep := s.replies[min(s.next, len(s.replies)-1)]
	s.next++
	s.mu.Unlock()

	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	ct := rep.ContentType
	if ct == "" {
		ct = "application/json"
		if status == http.StatusOK {
			ct = "text/event-stream"
		}
	}
	for k, vs := range rep.Header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_, _ = w.Write(rep.Body)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	switch {
	case rep.Cut:
		panic(http.ErrAbortHandler)
	case rep.Hang:
		<-r.Context().Done()
	}
}
