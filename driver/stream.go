package driver

import "errors"

// EventType is the kind of a stream [Event].
type EventType uint8

// The event types.
const (
	// EventTextDelta: Delta is the next piece of visible text.
	EventTextDelta EventType = iota + 1
	// EventToolCallStart: a call began; ToolCall has its ID (when the provider
	// sent one yet) and Name. Index is its position in Response.ToolCalls.
	EventToolCallStart
	// EventToolCallDelta: Delta is the next fragment of the call at Index's
	// arguments, as the provider sent it (JSON text; Gemini, which streams
	// values rather than text, sends none).
	EventToolCallDelta
	// EventToolCallDone: the call at Index is whole; ToolCall holds it, with
	// parsed Arguments (nil when they did not parse — the stream's error then
	// says why).
	EventToolCallDone
	// EventDone: the reply is whole; Response holds it. It is the last event.
	EventDone
	// EventReasoningDelta: Delta is the next piece of the model's readable
	// thinking (or its summary), for display; it is never part of the text.
	EventReasoningDelta
)

// Event is one step of a streamed reply.
type Event struct {
	Type     EventType `json:"type"`
	Index    int       `json:"index"`
	Delta    string    `json:"delta"`
	ToolCall ToolCall  `json:"tool_call"`
	Response *Response `json:"response"`
}

// Stream is a reply as it arrives. Use it like an SDK stream:
//
//	for s.Next() {
//		ev := s.Event()
//		...
//	}
//	if err := s.Err(); err != nil { ... }
//
// Next returns false at the end or on an error; Close releases the
// connection early and is safe to call more than once.
type Stream interface {
	Next() bool
	Event() Event
	Err() error
	Close() error
}

// Collect reads s to its end and returns the Response from its EventDone,
// with s's error. Like [Model.Generate], it returns both when the error is a
// [*CallError].
func Collect(s Stream) (*Response, error) {
	defer s.Close()
	var resp *Response
	for s.Next() {
		if ev := s.Event(); ev.Type == EventDone {
			resp = ev.Response
		}
	}
	err := s.Err()
	if err == nil && resp == nil {
		err = ErrTruncated
	}
	if err != nil && !IsCallError(err) {
		return nil, err
	}
	return resp, err
}

// PullFunc is how a driver feeds a stream built by [NewStream]: each call
// consumes one provider event, passes the events it produced to emit, and
// reports whether the provider's stream has ended.
type PullFunc func(emit func(Event)) (done bool, err error)

// NewStream returns a Stream that calls pull for more events whenever the ones
// it produced have been read, and close when it ends or is closed.
func NewStream(pull PullFunc, close func() error) Stream {
	s := &pullStream{pull: pull, close: close}
	s.emit = func(ev Event) { s.queue = append(s.queue, ev) }
	return s
}

type pullStream struct {
	pull   PullFunc
	close  func() error
	emit   func(Event)
	queue  []Event
	head   int
	cur    Event
	done   bool
	err    error
	closed bool
}

func (s *pullStream) Next() bool {
	if s.closed {
		return false
	}
	for s.head == len(s.queue) {
		if s.done || s.err != nil {
			s.Close()
			s.queue, s.head = nil, 0
			return false
		}
		s.queue, s.head = s.queue[:0], 0
		s.done, s.err = s.pull(s.emit)
	}
	s.cur = s.queue[s.head]
	s.queue[s.head] = Event{} // let the Response and strings go once read
	s.head++
	return true
}

func (s *pullStream) Event() Event { return s.cur }
func (s *pullStream) Err() error   { return s.err }

func (s *pullStream) Close() error {
	if s.closed || s.close == nil {
		s.closed = true
		return nil
	}
	s.closed = true
	if err := s.close(); err != nil && s.err == nil && !s.done {
		return err
	}
	return nil
}

// ErrTruncated is the cause of an error for a stream that ended before the
// provider said the reply was finished: the connection was cut, and a call in
// it may be incomplete.
var ErrTruncated = errors.New("stream ended before the reply was finished")
