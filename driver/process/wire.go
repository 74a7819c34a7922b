package process

import (
	"errors"

	"github.com/quiverkit/quiver/driver"
)

// version is the protocol's version: a program of another version refuses
// to open, rather than misread a request. 2: the driver types' keys are
// snake_case (issue 33); version 1 sent their Go field names.
const version = 2

// The operations a caller sends.
const (
	opOpen     = "open"
	opGenerate = "generate"
	opStream   = "stream"
	opCancel   = "cancel"
)

// request is one line from the caller.
type request struct {
	ID      int64           `json:"id,omitempty"`
	Op      string          `json:"op"`
	Version int             `json:"version,omitempty"` // open
	Spec    *driver.Spec    `json:"spec,omitempty"`    // open
	Request *driver.Request `json:"request,omitempty"` // generate, stream
}

// reply is one line from the program. The reply to open has id 0.
type reply struct {
	ID       int64            `json:"id"`
	Event    *driver.Event    `json:"event,omitempty"`
	Done     bool             `json:"done,omitempty"`
	Response *driver.Response `json:"response,omitempty"`
	Error    *wireError       `json:"error,omitempty"`
}

// wireError is an error as it crosses the pipe: its text, and what a
// caller may test it for.
type wireError struct {
	Message   string     `json:"message"`
	Truncated bool       `json:"truncated,omitempty"` // errors.Is(err, driver.ErrTruncated)
	Calls     []wireCall `json:"calls,omitempty"`     // driver.IsCallError(err): each *driver.CallError
}

// wireCall is one [driver.CallError].
type wireCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Duplicate bool   `json:"duplicate,omitempty"` // its cause is driver.ErrDuplicateID, else ErrInvalidArguments
	Message   string `json:"message"`             // its cause's text
}

// encodeError is the wire form of err; nil for nil.
func encodeError(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Message: err.Error(), Truncated: errors.Is(err, driver.ErrTruncated)}
	if driver.IsCallError(err) {
		for _, e := range leaves(err) {
			if ce, ok := e.(*driver.CallError); ok {
				w.Calls = append(w.Calls, wireCall{ID: ce.ID, Name: ce.Name, Arguments: ce.Arguments,
					Duplicate: errors.Is(ce.Err, driver.ErrDuplicateID), Message: ce.Err.Error()})
			}
		}
	}
	return w
}

// leaves returns the errors joined in err (errors.Join), or err alone.
func leaves(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}

// decode turns the wire form back into an error that reads as the
// original and matches the same sentinels and types.
func (w *wireError) decode() error {
	if w == nil {
		return nil
	}
	if len(w.Calls) > 0 {
		errs := make([]error, len(w.Calls))
		for i, c := range w.Calls {
			cause := driver.ErrInvalidArguments
			if c.Duplicate {
				cause = driver.ErrDuplicateID
			}
			errs[i] = &driver.CallError{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Err: &remoteError{msg: c.Message, is: cause}}
		}
		if len(errs) == 1 {
			return errs[0]
		}
		return errors.Join(errs...)
	}
	e := &remoteError{msg: w.Message}
	if w.Truncated {
		e.is = driver.ErrTruncated
	}
	return e
}

// remoteError is an error of the model process: its text as it was, and
// the sentinel it wrapped there, if any.
type remoteError struct {
	msg string
	is  error
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Unwrap() error { return e.is }
