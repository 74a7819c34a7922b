package openai

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/schema"
)

// parameters returns def's parameters as the SDK's map, in the strict dialect
// when def asks for it and the schema allows it, and whether strict is on.
// The map's values are pre-encoded JSON, so converting a catalogue costs one
// encoding per schema and no decoding of nested keywords.
func parameters(def driver.ToolDefinition) (map[string]any, bool, error) {
	s, strict := def.Parameters, false
	if def.Strict && s != nil {
		st, err := schema.OpenAIStrict(s)
		switch {
		case err == nil:
			s, strict = st, true
		case errors.Is(err, schema.ErrNotStrict):
			// Sent as is, strict off: the model may then stray from the
			// schema, and the toolkit's validation catches it.
		default:
			return nil, false, fmt.Errorf("tool %q: %w", def.Name, err)
		}
	}
	fields, err := driver.SchemaFields(s)
	if err != nil {
		return nil, false, fmt.Errorf("tool %q: %w", def.Name, err)
	}
	if def.Parameters == nil && def.Strict {
		// An argument-less tool is trivially strict.
		fields["additionalProperties"] = json.RawMessage("false")
		fields["required"] = json.RawMessage("[]")
		strict = true
	}
	m := make(map[string]any, len(fields))
	for k, v := range fields {
		m[k] = v
	}
	return m, strict, nil
}
