package openai

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/schema"
)

// parameters returns def's parameters as the SDK's map, in the strict dialect
// when def asks for it and the schema allows it, and whether strict is on.
// The map's values are pre-encoded JSON, and the conversion of each schema is
// remembered (driver.Memo), so offering a catalogue on every turn costs a map
// copy per tool.
func parameters(def driver.ToolDefinition) (map[string]any, bool, error) {
	var fields map[string]json.RawMessage
	strict := false
	var err error
	switch {
	case def.Parameters == nil && def.Strict:
		// An argument-less tool is trivially strict.
		fields, _ = driver.SchemaFields(nil)
		fields["additionalProperties"] = json.RawMessage("false")
		fields["required"] = json.RawMessage("[]")
		strict = true
	case def.Strict:
		var st strictFields
		st, err = driver.Memo(def.Parameters, "openai-strict", strictSchema)
		fields, strict = st.fields, st.strict
	default:
		fields, err = driver.SchemaFields(def.Parameters)
	}
	if err != nil {
		return nil, false, fmt.Errorf("tool %q: %w", def.Name, err)
	}
	m := make(map[string]any, len(fields))
	for k, v := range fields {
		m[k] = v
	}
	return m, strict, nil
}

type strictFields struct {
	fields map[string]json.RawMessage
	strict bool
}

func strictSchema(s *jsonschema.Schema) (strictFields, error) {
	st, err := schema.OpenAIStrict(s)
	switch {
	case errors.Is(err, schema.ErrNotStrict):
		// Sent as is, strict off: the model may then stray from the schema,
		// and the toolkit's validation catches it.
		fields, err := driver.SchemaFields(s)
		return strictFields{fields: fields}, err
	case err != nil:
		return strictFields{}, err
	}
	// st is a fresh copy that nothing else references, so its encoding is
	// not memoized on its own.
	fields, err := driver.EncodeSchemaFields(st)
	return strictFields{fields: fields, strict: true}, err
}
