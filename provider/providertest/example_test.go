package providertest_test

import (
	"context"
	"fmt"

	"github.com/quiverkit/quiver/provider/providertest"
	"github.com/quiverkit/quiver/tool"
)

// fixed is a provider whose catalogue is fixed.
type fixed struct{ tools []*tool.Tool }

func (fixed) ID() string                                    { return "fixed" }
func (fixed) Priority() int                                 { return 10 }
func (p fixed) Tools(context.Context) ([]*tool.Tool, error) { return p.tools, nil }

type addInput struct {
	A int `json:"a"`
	B int `json:"b"`
}

func add(name string) *tool.Tool {
	return tool.Func(name, "Adds two numbers.", func(_ context.Context, _ tool.Context, in addInput) (int, error) {
		return in.A + in.B, nil
	}, tool.ReadOnly())
}

// A provider's own tests run it through the contract; the second provider
// lists one name twice, which the registry would resolve to the first
// tool of that name without a word.
func ExampleTestProvider() {
	ctx := context.Background()
	fmt.Println(providertest.TestProvider(ctx, fixed{tools: []*tool.Tool{add("add"), add("sum")}}))
	fmt.Println(providertest.TestProvider(ctx, fixed{tools: []*tool.Tool{add("add"), add("add")}}))
	// Output:
	// <nil>
	// unique-names: two tools named "add": the names of one listing must be unique: the registry serves the first tool of a name and drops the others silently
}
