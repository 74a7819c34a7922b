package provider_test

import (
	"context"
	"fmt"
	"log"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/tool"
)

// listed is a provider whose catalogue is fixed: the smallest [provider.Provider].
type listed struct {
	id       string
	priority int
	tools    []*tool.Tool
}

func (p listed) ID() string                                  { return p.id }
func (p listed) Priority() int                               { return p.priority }
func (p listed) Tools(context.Context) ([]*tool.Tool, error) { return p.tools, nil }

// A registry routes a name to the provider with the highest priority that
// offers it, so a faster implementation of a tool (here a CLI-backed
// grep_search) replaces the built-in one without the model seeing a second
// tool. An alias is another name for a tool, with its argument names
// rewritten: run_command's working_dir is exec_command's workdir.
func ExampleRegistry_Resolve() {
	type input struct {
		Command string `json:"command,omitempty"`
		Workdir string `json:"workdir,omitempty"`
	}
	stub := func(name string) *tool.Tool {
		return tool.Func(name, "A stand-in.", func(context.Context, tool.Context, input) (string, error) { return "", nil })
	}
	reg := provider.NewRegistry(
		listed{"builtin", provider.PriorityBuiltin, []*tool.Tool{stub("grep_search"), stub("exec_command")}},
		listed{"cli", provider.PriorityCLI, []*tool.Tool{stub("grep_search")}},
	)
	reg.AddAlias(provider.Alias{Name: "run_command", Target: "exec_command", Renames: map[string]string{"working_dir": "workdir"}})

	ctx := context.Background()
	e, _, err := reg.Resolve(ctx, "grep_search", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Tool.Name, "from", e.Provider, "shadowing", e.Shadowed)

	e, args, err := reg.Resolve(ctx, "run_command", []byte(`{"command":"ls","working_dir":"src"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Tool.Name, "from", e.Provider, string(args))

	_, _, err = reg.Resolve(ctx, "no_such_tool", nil)
	fmt.Println(err)
	// Output:
	// grep_search from cli shadowing [builtin]
	// exec_command from builtin {"command":"ls","workdir":"src"}
	// TOOL_NOT_FOUND: no tool named "no_such_tool"
}
