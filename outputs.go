package quiver

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/tools"
)

// RegisterOutputType makes an output type known to validate_output: the
// model can then check data it produced against s before handing it over.
func (tk *Toolkit) RegisterOutputType(name string, s *jsonschema.Schema) error {
	types, err := Dependency(context.Background(), tk, tools.OutputTypesKey)
	if err != nil {
		return err
	}
	return types.Register(name, s)
}

// Plan returns the toolkit's todo plan (what write_todos last set), for a
// host that shows it.
func (tk *Toolkit) Plan(ctx context.Context) (*tools.Plan, error) {
	return Dependency(ctx, tk, tools.PlanKey)
}
