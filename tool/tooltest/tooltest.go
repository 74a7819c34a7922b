// Package tooltest runs a single tool the way the pipeline would, for the
// tests of tool authors: arguments parsed and validated against the tool's
// schema first, then Execute with a context whose dependencies come from a
// scope the test fills. Like net/http/httptest, it is for tests only.
package tooltest

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
)

// Validate checks args, JSON text, against t's input schema as the pipeline's
// check and validate steps do, and returns the arguments to run t with.
func Validate(t *tool.Tool, args string) (json.RawMessage, error) {
	in := t.InSchema()
	v, err := schema.Compile(in)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "tool %q: %w", t.Name, err)
	}
	m, err := schema.ParseObject([]byte(args))
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidToolArgumentsType, "arguments: %w", err)
	}
	changed, err := v.Validate(m)
	if err != nil {
		te := tool.Errorf(tool.CodeInvalidArguments, "%w", err)
		if fe := (*schema.FieldError)(nil); errors.As(err, &fe) {
			te.WithDetail("field", fe.Field).WithDetail("rule", fe.Rule)
		}
		return nil, te
	}
	if changed {
		return json.Marshal(m)
	}
	return json.RawMessage(args), nil
}

// Call validates args and runs t in a call whose dependencies come from a
// new call scope below shared (which may be nil). The call's scope is closed
// afterwards, as the pipeline closes it.
func Call(ctx context.Context, t *tool.Tool, shared *tool.Scope, args string) (tool.Result, error) {
	raw, err := Validate(t, args)
	if err != nil {
		return tool.Result{}, err
	}
	scope := tool.NewScope(nil, shared)
	defer scope.Close()
	return t.Execute(ctx, tool.NewContext("call_test", t.Name, nil, scope), raw)
}
