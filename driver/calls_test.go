package driver_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/driver"
)

func TestParseArguments(t *testing.T) {
	tests := []struct {
		name, raw string
		want      string // "" means an error
		errHas    string
	}{
		{"empty arguments are an empty object", "", "{}", ""},
		{"blank arguments are an empty object", " \n\t", "{}", ""},
		{"an object is kept as sent", `{"city":"Paris"}`, `{"city":"Paris"}`, ""},
		{"surrounding whitespace is trimmed", "  {\"a\": 1}\n", `{"a": 1}`, ""},
		{"an array is refused, never {}", `["a"]`, "", "JSON array"},
		{"a string is refused", `"city=Paris"`, "", "JSON string"},
		{"a number is refused", `42`, "", "JSON number"},
		{"null is refused", `null`, "", "JSON null"},
		{"a cut-off object is refused, never {}", `{"city":"Par`, "", "not valid JSON"},
		{"two objects are refused", `{}{}`, "", "not valid JSON"},
		{"python-style quotes are refused", `{'city': 'Paris'}`, "", "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := driver.ParseArguments("call_1", "weather", tt.raw)
			if tt.want != "" {
				if err != nil || string(got) != tt.want {
					t.Fatalf("got %s, %v; want %s", got, err, tt.want)
				}
				return
			}
			var ce *driver.CallError
			if !errors.As(err, &ce) || !errors.Is(err, driver.ErrInvalidArguments) || got != nil {
				t.Fatalf("got %s, %v; want a *CallError wrapping ErrInvalidArguments", got, err)
			}
			msg := err.Error()
			for _, want := range []string{`"call_1"`, "weather", tt.errHas} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not name %q", msg, want)
				}
			}
			if ce.Arguments != tt.raw {
				t.Errorf("CallError.Arguments = %q, want the raw text %q", ce.Arguments, tt.raw)
			}
		})
	}
}

func TestObjectArguments(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
		err  bool
	}{
		{"no input is an empty object", nil, `{}`, false},
		{"a decoded object is encoded", map[string]any{"a": []any{1.0, "x"}}, `{"a":[1,"x"]}`, false},
		{"raw JSON is parsed like text", json.RawMessage(`{"b":true}`), `{"b":true}`, false},
		{"an empty raw message is an empty object", json.RawMessage(nil), `{}`, false},
		{"a decoded array is refused", []any{"a"}, "", true},
		{"a decoded string is refused", "x", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := driver.ObjectArguments("id", "name", tt.in)
			if tt.err != (err != nil) || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s (error %v)", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestCheckIDs(t *testing.T) {
	t.Run("calls without ids get unique generated ones, marked", func(t *testing.T) {
		calls := []driver.ToolCall{{Name: "a"}, {ID: "x", Name: "b"}, {Name: "a"}}
		if err := driver.CheckIDs(calls, "call"); err != nil {
			t.Fatal(err)
		}
		if calls[1].ID != "x" || calls[1].Metadata != nil {
			t.Errorf("a provider id was changed: %+v", calls[1])
		}
		if calls[0].ID == calls[2].ID || !strings.HasPrefix(calls[0].ID, "call_") {
			t.Errorf("generated ids %q and %q", calls[0].ID, calls[2].ID)
		}
		for _, c := range []driver.ToolCall{calls[0], calls[2]} {
			if c.Metadata[driver.MetaIDGenerated] != "true" {
				t.Errorf("%s not marked as generated", c.ID)
			}
		}
		other := []driver.ToolCall{{Name: "a"}}
		_ = driver.CheckIDs(other, "call")
		if other[0].ID == calls[0].ID {
			t.Errorf("two replies generated the same id %q", other[0].ID)
		}
	})
	t.Run("two calls with one id are a call error naming the id", func(t *testing.T) {
		calls := []driver.ToolCall{{ID: "dup", Name: "a"}, {ID: "dup", Name: "b"}, {ID: "ok", Name: "c"}}
		err := driver.CheckIDs(calls, "call")
		if !errors.Is(err, driver.ErrDuplicateID) || !driver.IsCallError(err) || !strings.Contains(err.Error(), `"dup"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestIsCallError(t *testing.T) {
	ce := &driver.CallError{ID: "1", Name: "n", Err: driver.ErrInvalidArguments}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil is not", nil, false},
		{"one call error is", ce, true},
		{"joined call errors are", errors.Join(ce, ce), true},
		{"a call error joined with another error is not", errors.Join(ce, errors.New("http 500")), false},
		{"another error is not", driver.ErrTruncated, false},
	}
	for _, tt := range tests {
		if got := driver.IsCallError(tt.err); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
}

func TestSchemaFields(t *testing.T) {
	got, err := driver.SchemaFields(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]json.RawMessage{"type": json.RawMessage(`"object"`), "properties": json.RawMessage(`{}`)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a tool without parameters (-want +got):\n%s", d)
	}
}
