package process

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/quiverkit/quiver/driver"
)

// OpenFunc builds the model a spec names: driver/providers' New.
type OpenFunc func(ctx context.Context, s driver.Spec) (driver.Model, error)

// Serve answers the requests read from r on w, for the model open builds
// from the spec of the first request, until r ends or ctx is done. Requests
// run concurrently; a cancel request, or the end of r, cancels those still
// running. It returns an error only when the exchange itself fails: a
// request it cannot read, a spec open refuses (after telling the caller).
func Serve(ctx context.Context, r io.Reader, w io.Writer, open OpenFunc) error {
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel, below: the requests still running end first
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{w: w, running: map[int64]context.CancelFunc{}}
	dec := json.NewDecoder(bufio.NewReader(r))
	m, err := s.open(ctx, dec, open)
	if err != nil {
		return err
	}
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read a request: %w", err)
		}
		switch req.Op {
		case opCancel:
			s.cancel(req.ID)
		case opGenerate, opStream:
			if req.Request == nil {
				s.send(reply{ID: req.ID, Done: true, Error: &wireError{Message: "request " + req.Op + " without a request"}})
				continue
			}
			rctx := s.start(ctx, req.ID)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer s.cancel(req.ID)
				if req.Op == opGenerate {
					resp, err := m.Generate(rctx, *req.Request)
					s.send(reply{ID: req.ID, Done: true, Response: resp, Error: encodeError(err)})
				} else {
					s.stream(rctx, m, req.ID, *req.Request)
				}
			}()
		default:
			s.send(reply{ID: req.ID, Done: true, Error: &wireError{Message: fmt.Sprintf("unknown op %q", req.Op)}})
		}
	}
}

// server is one Serve's state: the writer every reply goes through, and
// the cancel function of each running request.
type server struct {
	wmu     sync.Mutex
	w       io.Writer
	mu      sync.Mutex
	running map[int64]context.CancelFunc
}

// open reads the first request, which must open a model, and answers it.
func (s *server) open(ctx context.Context, dec *json.Decoder, open OpenFunc) (driver.Model, error) {
	var req request
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("read the open request: %w", err)
	}
	var err error
	var m driver.Model
	switch {
	case req.Op != opOpen || req.Spec == nil:
		err = fmt.Errorf("the first request must be %q with a spec, not %q", opOpen, req.Op)
	case req.Version != version:
		err = fmt.Errorf("protocol version %d, this program speaks %d: install quiver and quiver-models from one build", req.Version, version)
	default:
		m, err = open(ctx, *req.Spec)
	}
	s.send(reply{Done: true, Error: encodeError(err)})
	return m, err
}

// stream runs one streaming request, an event per reply.
func (s *server) stream(ctx context.Context, m driver.Model, id int64, req driver.Request) {
	st, err := m.Stream(ctx, req)
	if err != nil {
		s.send(reply{ID: id, Done: true, Error: encodeError(err)})
		return
	}
	for st.Next() {
		ev := st.Event()
		s.send(reply{ID: id, Event: &ev})
	}
	err = st.Err()
	st.Close()
	s.send(reply{ID: id, Done: true, Error: encodeError(err)})
}

// start registers a running request and returns its context.
func (s *server) start(ctx context.Context, id int64) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.running[id]; old != nil {
		old() // a caller reusing an id gives up the first request
	}
	s.running[id] = cancel
	return ctx
}

// cancel cancels a running request; a finished one is no longer there.
func (s *server) cancel(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.running[id]; c != nil {
		c()
		delete(s.running, id)
	}
}

// send writes one reply line. A write that fails (the caller has gone) is
// dropped: the end of r ends Serve.
func (s *server) send(r reply) {
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(reply{ID: r.ID, Done: true, Error: &wireError{Message: "encode the reply: " + err.Error()}})
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.w.Write(append(b, '\n'))
}
