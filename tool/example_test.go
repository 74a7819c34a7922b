package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/quiverkit/quiver/tool"
)

// Func turns a typed Go function into a tool: the input schema comes from
// the input type (its json and jsonschema tags), the output schema from the
// output type, and Execute decodes the arguments into the input type. A
// host usually registers the tool with a toolkit (quiver.WithTools), whose
// pipeline validates the arguments and applies the policy before Execute;
// here it is called directly.
func ExampleFunc() {
	type countInput struct {
		Text string `json:"text" jsonschema:"the text to count words in"`
		Min  int    `json:"min,omitempty" jsonschema:"count only words at least this long"`
	}
	type countOutput struct {
		Words int `json:"words"`
	}
	count := tool.Func("count_words", "Counts the words of a text.",
		func(_ context.Context, _ tool.Context, in countInput) (countOutput, error) {
			n := 0
			for _, w := range strings.Fields(in.Text) {
				if len(w) >= in.Min {
					n++
				}
			}
			return countOutput{Words: n}, nil
		}, tool.ReadOnly())

	inSchema, _ := count.Schemas()
	in, _ := json.Marshal(inSchema)
	fmt.Println(string(in))
	fmt.Println("risk:", count.Risk)

	tc := tool.NewContext("call-1", count.Name, nil, nil)
	res, err := count.Execute(context.Background(), tc, json.RawMessage(`{"text":"one two three four","min":4}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.String())
	fmt.Printf("%+v\n", res.Output)

	// Arguments that do not decode are an INVALID_ARGUMENTS error the model
	// can correct.
	_, err = count.Execute(context.Background(), tc, json.RawMessage(`{"text":5}`))
	var te *tool.Error
	if errors.As(err, &te) {
		fmt.Println(te.Code, te.Message)
	}
	// Output:
	// {"type":"object","properties":{"text":{"type":"string","description":"the text to count words in"},"min":{"type":"integer","description":"count only words at least this long"}},"required":["text"],"additionalProperties":false}
	// risk: low
	// {"words":2}
	// {Words:2}
	// INVALID_ARGUMENTS field "text": has JSON type number, want string
}
