package driver_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/quiverkit/quiver/driver"
)

// TestCallErrorsKeepTheirCause: arguments that are not JSON are
// ErrInvalidArguments and still say, through errors.As, what json found.
func TestCallErrorsKeepTheirCause(t *testing.T) {
	_, parseErr := driver.ParseArguments("id", "name", `{"a":`)
	_, marshalErr := driver.ObjectArguments("id", "name", map[string]any{"a": make(chan int)})
	cases := []struct {
		name string
		err  error
		is   func(error) bool
	}{
		{"text that is not JSON", parseErr, func(err error) bool { var se *json.SyntaxError; return errors.As(err, &se) }},
		{"a map that does not marshal", marshalErr, func(err error) bool { var ue *json.UnsupportedTypeError; return errors.As(err, &ue) }},
	}
	for _, c := range cases {
		if !errors.Is(c.err, driver.ErrInvalidArguments) || !c.is(c.err) {
			t.Errorf("%s: %v, want ErrInvalidArguments keeping json's error", c.name, c.err)
		}
	}
}
