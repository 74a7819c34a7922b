package custom

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/quiverkit/quiver/tool"
)

// TestArgvErrorsKeepTheirCause: a refused argument is INVALID_ARGUMENTS
// and still carries what refused it, for errors.As.
func TestArgvErrorsKeepTheirCause(t *testing.T) {
	tmpl, err := ParseTemplate("echo {word} {flag}")
	if err != nil {
		t.Fatal(err)
	}
	d := &def{Spec: Spec{Params: []Param{{Name: "word"}, {Name: "flag", Type: "boolean"}}},
		tmpl: tmpl, params: map[string]Param{}}
	if _, err := d.schema(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args string
		is   func(error) bool
	}{
		{"an option where none is allowed", `{"word":"-rf"}`, func(err error) bool { var oe *OptionError; return errors.As(err, &oe) }},
		{"a value of the wrong JSON type", `{"flag":"yes"}`, func(err error) bool { var ue *json.UnmarshalTypeError; return errors.As(err, &ue) }},
		{"arguments that are not an object", `[]`, func(err error) bool { var ue *json.UnmarshalTypeError; return errors.As(err, &ue) }},
	}
	for _, c := range cases {
		_, err := d.argv(json.RawMessage(c.args))
		if tool.CodeOf(err) != tool.CodeInvalidArguments || !c.is(err) {
			t.Errorf("%s: argv = %v (%s), want INVALID_ARGUMENTS keeping its cause", c.name, err, tool.CodeOf(err))
		}
	}
}
