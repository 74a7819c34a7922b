package driver

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// The causes a [*CallError] wraps.
var (
	// ErrInvalidArguments: the arguments are not JSON, or are JSON but not an
	// object.
	ErrInvalidArguments = errors.New("arguments are not a JSON object")
	// ErrDuplicateID: two calls in one reply share an id.
	ErrDuplicateID = errors.New("duplicate tool call id")
)

// CallError reports one unusable call in an otherwise whole reply: which call
// (its id and name), the arguments as the model sent them, and why.
type CallError struct {
	ID        string
	Name      string
	Arguments string // as received, for logs and for telling the model
	Err       error  // ErrInvalidArguments or ErrDuplicateID, possibly wrapping the parser's error
}

// Error names the call and says what was wrong with it.
func (e *CallError) Error() string {
	switch {
	case errors.Is(e.Err, ErrDuplicateID):
		return fmt.Sprintf("tool call %q (%s): %v", e.ID, e.Name, e.Err)
	default:
		return fmt.Sprintf("tool call %q (%s): %v: %s", e.ID, e.Name, e.Err, clip(e.Arguments, 200))
	}
}

// Unwrap returns the cause: ErrInvalidArguments or ErrDuplicateID, wrapped.
func (e *CallError) Unwrap() error { return e.Err }

// IsCallError reports whether err is made only of *CallErrors (one, or
// several joined): a reply that came whole but has unusable calls.
func IsCallError(err error) bool {
	if err == nil {
		return false
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !IsCallError(e) {
				return false
			}
		}
		return true
	}
	_, ok := err.(*CallError)
	return ok
}

// ParseArguments turns the arguments a provider sent as text into a JSON
// object for the call id/name: blank text is {}; anything that is not one JSON
// object (malformed, an array, a string, a number, null) is a *CallError.
// It never returns {} for text that was not blank.
func ParseArguments(id, name, raw string) (json.RawMessage, error) {
	b := bytes.TrimSpace([]byte(raw))
	if len(b) == 0 {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return nil, &CallError{ID: id, Name: name, Arguments: raw, Err: fmt.Errorf("%w: not valid JSON: %w", ErrInvalidArguments, err)}
	}
	if b[0] != '{' {
		return nil, &CallError{ID: id, Name: name, Arguments: raw, Err: fmt.Errorf("%w: got a JSON %s", ErrInvalidArguments, jsonKind(b[0]))}
	}
	return json.RawMessage(b), nil
}

// ObjectArguments is [ParseArguments] for providers that send arguments
// already decoded (Anthropic input, Gemini args): nil is {}, a map is
// encoded, anything else is a *CallError.
func ObjectArguments(id, name string, v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		return ParseArguments(id, name, string(v))
	case map[string]any:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, &CallError{ID: id, Name: name, Arguments: fmt.Sprint(v), Err: fmt.Errorf("%w: %w", ErrInvalidArguments, err)}
		}
		return b, nil
	default:
		b, _ := json.Marshal(v)
		return ParseArguments(id, name, string(b))
	}
}

func jsonKind(c byte) string {
	switch c {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// CheckIDs gives every call without an id a generated one (marked with
// [MetaIDGenerated]) and reports calls that share an id, as *CallErrors
// joined. prefix starts generated ids ("call" gives "call_3f9a..._0").
func CheckIDs(calls []ToolCall, prefix string) error {
	var errs []error
	seen := make(map[string]int, len(calls))
	var nonce string
	for i := range calls {
		c := &calls[i]
		if c.ID == "" {
			if nonce == "" {
				nonce = newNonce()
			}
			c.ID = prefix + "_" + nonce + "_" + strconv.Itoa(i)
			c.Metadata = withMeta(c.Metadata, MetaIDGenerated, "true")
		}
		if j, dup := seen[c.ID]; dup {
			errs = append(errs, &CallError{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments),
				Err: fmt.Errorf("%w: calls %d and %d", ErrDuplicateID, j, i)})
			continue
		}
		seen[c.ID] = i
	}
	return errors.Join(errs...)
}

// newNonce makes generated ids unique across replies too, so that audit
// records keyed by call id never collide.
func newNonce() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func withMeta(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = make(map[string]string, 1)
	}
	m[k] = v
	return m
}

// WithMeta returns m with k set to v, allocating m if it is nil. Drivers use
// it to fill [ToolCall.Metadata].
func WithMeta(m map[string]string, k, v string) map[string]string { return withMeta(m, k, v) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// SchemaFields returns the top-level keywords of the parameters schema s,
// each as its JSON, for SDKs that take a schema as a map. A nil s is the
// schema of a tool without arguments: an object with no properties. The map
// is the caller's; its values are shared and must not be modified.
func SchemaFields(s *jsonschema.Schema) (map[string]json.RawMessage, error) {
	if s == nil {
		return map[string]json.RawMessage{"type": json.RawMessage(`"object"`), "properties": json.RawMessage(`{}`)}, nil
	}
	shared, err := Memo(s, "fields", EncodeSchemaFields)
	if err != nil {
		return nil, err
	}
	return maps.Clone(shared), nil
}

// EncodeSchemaFields is [SchemaFields] without the memo, for a schema made
// for one request (a dialect's copy of a canonical schema).
func EncodeSchemaFields(s *jsonschema.Schema) (map[string]json.RawMessage, error) {
	offsets := map[string][2]int{}
	b, err := appendSchema(nil, s, offsets)
	if err != nil {
		return nil, fmt.Errorf("encode parameters schema: %w", err)
	}
	m := make(map[string]json.RawMessage, len(offsets))
	for k, o := range offsets {
		m[k] = b[o[0]:o[1]:o[1]]
	}
	return m, nil
}
