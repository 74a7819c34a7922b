package quiver_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// Call is checked at compile time: the input must be read_file's input type,
// and the result is its typed output — no JSON, no type assertions.
func ExampleCall() {
	dir, _ := os.MkdirTemp("", "quiver-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\nworld\n"), 0o644)

	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard())
	if err != nil {
		log.Fatal(err)
	}
	defer tk.Close()

	out, err := quiver.Call(context.Background(), tk, tools.ReadFile, tools.ReadFileInput{Path: "hello.txt"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.TotalLines, out.Size)
	fmt.Print(out.Content)
	// Output:
	// 2 12
	//      1	hello
	//      2	world
}

// A host's own tool, from a typed function: the schema is inferred, the
// arguments validated, and errors come back with stable codes.
func ExampleToolkit_Invoke() {
	type addInput struct {
		A int `json:"a" jsonschema:"the first number"`
		B int `json:"b" jsonschema:"the second number"`
	}
	add := tool.Func("add", "Adds two numbers.", func(_ context.Context, _ tool.Context, in addInput) (int, error) {
		return in.A + in.B, nil
	}, tool.ReadOnly())

	tk, err := quiver.New(quiver.WithRoot(os.TempDir()), quiver.WithTools(add))
	if err != nil {
		log.Fatal(err)
	}
	defer tk.Close()

	out, _ := tk.Invoke(context.Background(), "add", map[string]any{"a": 2, "b": 3})
	fmt.Println(out.Content.String())
	_, err = tk.Invoke(context.Background(), "add", map[string]any{"a": 2})
	fmt.Println(err)
	// Output:
	// 5
	// INVALID_ARGUMENTS: field "b": required field is missing
}

// A host reaches a toolkit-wide dependency of the tools: here it registers
// the shape it expects, and the model checks its own output with
// validate_output before it finishes.
func ExampleDependency() {
	tk, err := quiver.New(quiver.WithRoot(os.TempDir()), builtin.Standard())
	if err != nil {
		log.Fatal(err)
	}
	defer tk.Close()
	types, err := quiver.Dependency(context.Background(), tk, tools.OutputTypesKey)
	if err != nil {
		log.Fatal(err)
	}
	report := &jsonschema.Schema{Type: "object", Required: []string{"title"},
		Properties: map[string]*jsonschema.Schema{"title": {Type: "string"}}}
	if err := types.Register("report", report); err != nil {
		log.Fatal(err)
	}
	out, _ := tk.Invoke(context.Background(), "validate_output", map[string]any{"outputType": "report", "data": map[string]any{"title": 3}})
	fmt.Println(out.Content.Output.(*tools.ValidateOutputOutput).Valid)
	// Output:
	// false
}
