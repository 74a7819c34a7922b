package quiver_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// GreetInput is the custom tool's input: its JSON names are the arguments
// a model sends, and its jsonschema tags their descriptions.
type GreetInput struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// GreetOutput is the custom tool's typed output.
type GreetOutput struct {
	Greeting string `json:"greeting"`
}

// Greet is a typed reference to the custom tool, for quiver.Call.
var Greet = tool.RefTo[GreetInput, GreetOutput]("greet")

// The first program a newcomer writes: a custom typed tool beside the
// built-in ones, each called both ways — by a Go call (quiver.Call, typed
// input and output) and by name with JSON arguments (Invoke, as a model's
// call arrives). The custom tool is not marked read-only, so the policy
// asks about its calls: quiver.WithApprover says who answers (approve.Auto
// approves them all; the default refuses, naming WithApprover).
func Example_firstProgram() {
	dir, _ := os.MkdirTemp("", "quiver-first")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644)

	greet := tool.Func("greet", "Greets someone by name.", func(_ context.Context, _ tool.Context, in GreetInput) (GreetOutput, error) {
		return GreetOutput{Greeting: "Hello, " + in.Name + "!"}, nil
	})
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithTools(greet), quiver.WithApprover(approve.Auto))
	if err != nil {
		log.Fatal(err)
	}
	defer tk.Close()
	ctx := context.Background()

	// By a Go call: typed in, typed out.
	g, err := quiver.Call(ctx, tk, Greet, GreetInput{Name: "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Greeting)
	file, err := quiver.Call(ctx, tk, tools.ReadFile, tools.ReadFileInput{Path: "hello.txt"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(file.TotalLines, file.Size)

	// By name, with JSON arguments, as a model sends them: a string holding
	// JSON, json.RawMessage or a map all do. Content is what the model sees.
	out, err := tk.Invoke(ctx, "greet", `{"name": "Grace"}`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Content.Text())
	out, err = tk.Invoke(ctx, "read_file", `{"path": "hello.txt"}`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Content.Text())
	// Output:
	// Hello, Ada!
	// 1 6
	// {"greeting":"Hello, Grace!"}
	//      1	hello
}
