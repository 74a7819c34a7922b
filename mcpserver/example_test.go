package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
)

// A host's toolkit served over a pair of pipes, as `quiver serve` serves it
// over stdin and stdout, and used with the SDK's client.
func ExampleServer_Run() {
	ctx := context.Background()
	add := tool.Func("add", "Adds two numbers.", func(_ context.Context, _ tool.Context, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (int, error) {
		return in.A + in.B, nil
	}, tool.ReadOnly())
	dir, _ := os.MkdirTemp("", "mcpserver-example")
	defer os.RemoveAll(dir)
	tk, err := quiver.New(quiver.WithRoot(dir), quiver.WithTools(add))
	if err != nil {
		log.Fatal(err)
	}
	defer tk.Close()
	srv, err := mcpserver.New(ctx, tk, mcpserver.Options{})
	if err != nil {
		log.Fatal(err)
	}

	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	go srv.Run(ctx, serverIn, serverOut)

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": "two"}})
	fmt.Println(res.IsError, res.Meta[mcpserver.MetaError].(map[string]any)["code"])
	// Output:
	// 5
	// true INVALID_ARGUMENTS
}

// The streamable HTTP endpoint, here on a test server on loopback (requests
// naming another host are refused: see [mcpserver.Server.Handler]).
func ExampleServer_Handler() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "mcpserver-example")
	defer os.RemoveAll(dir)
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		log.Fatal(err)
	}
	defer tk.Close()
	srv, err := mcpserver.New(ctx, tk, mcpserver.Options{MaxSessions: 8})
	if err != nil {
		log.Fatal(err)
	}
	web := httptest.NewServer(srv.Handler())
	defer web.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: web.URL + "/mcp"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	os.WriteFile(dir+"/hello.txt", []byte("hello over HTTP\n"), 0o644)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "hello.txt"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	//      1	hello over HTTP
}
