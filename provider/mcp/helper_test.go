package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// The test binary doubles as the MCP servers some tests need: run with
// QUIVER_TEST_MCP_SERVER=MODE it serves MODE on stdio with the real go-sdk
// server (or, for the misbehaving modes, writes what such a server would).
func TestMain(m *testing.M) {
	if mode := os.Getenv("QUIVER_TEST_MCP_SERVER"); mode != "" {
		os.Exit(serveTestServer(mode))
	}
	healthyAfter = 300 * time.Millisecond
	os.Exit(m.Run())
}

// testServer returns a config that runs this test binary as the server in
// the given mode.
func testServer(t *testing.T, name, mode string) Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Dir is the server's workspace: under the sandbox, the only place it may
	// write.
	return Config{Name: name, Command: exe, Dir: t.TempDir(), Env: map[string]string{"QUIVER_TEST_MCP_SERVER": mode},
		Timeout: 10 * time.Second, StartTimeout: 20 * time.Second}
}

func serveTestServer(mode string) int {
	switch mode {
	case "garbage":
		fmt.Println("this is not JSON-RPC")
		time.Sleep(time.Minute)
		return 0
	case "hang":
		io.Copy(io.Discard, os.Stdin)
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: SECRET_API_KEY is not set")
		return 3
	}
	if f := os.Getenv("QUIVER_TEST_PID_FILE"); f != "" {
		// Leave a child behind, as a server that starts helpers does.
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.WriteFile(f, []byte(fmt.Sprint(child.Process.Pid)), 0o644)
	}
	if os.Getenv("QUIVER_TEST_LEAVE_TREE") != "" {
		// Leave behind what a server must not leave after its session: a
		// child that ignores SIGTERM and a daemon that called setsid.
		tree := exec.Command("sh", "-c", sandboxtest.TreeLine)
		if err := tree.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "quiver-test-server", Version: "1"}, nil)
	addTestTools(srv)
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

// defsSchema is an input schema whose property is a $ref into $defs: the
// shape two popular Go agents break by forwarding only properties/required.
const defsSchema = `{
  "type": "object",
  "$defs": {"point": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x", "y"], "additionalProperties": false}},
  "properties": {"from": {"$ref": "#/$defs/point"}, "to": {"$ref": "#/$defs/point"}},
  "required": ["from", "to"]
}`

func addTestTools(srv *sdk.Server) {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	srv.AddTool(&sdk.Tool{Name: "distance", Description: "Manhattan distance of two points.", InputSchema: json.RawMessage(defsSchema), Annotations: ro},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ From, To struct{ X, Y int } }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			d := abs(in.From.X-in.To.X) + abs(in.From.Y-in.To.Y)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(d)}}, StructuredContent: map[string]any{"distance": d}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "a.tool/with spaces", Description: "Odd name.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("odd"), nil })
	srv.AddTool(&sdk.Tool{Name: "fail", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk on fire"}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "quiver-denied", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "Error executing tool x: TOOL_NOT_ALLOWED: refused"}},
				Meta: sdk.Meta{"quiver/error": map[string]any{"code": "TOOL_NOT_ALLOWED", "message": "refused by policy"}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "image", InputSchema: map[string]any{"type": "object"}, Annotations: ro},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a pixel:"}, &sdk.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG")}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "lines", Description: "Prints 3000 lines.", InputSchema: map[string]any{"type": "object"}, Annotations: ro},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var b strings.Builder
			for i := 1; i <= 3000; i++ {
				fmt.Fprintf(&b, "line %d\n", i)
			}
			return text(b.String()), nil
		})
	srv.AddTool(&sdk.Tool{Name: "hang", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	srv.AddTool(&sdk.Tool{Name: "crash", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "panic: crashing on purpose")
			os.Exit(2)
			return nil, nil
		})
	srv.AddTool(&sdk.Tool{Name: "grow", Description: "Adds a tool named grown.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			srv.AddTool(&sdk.Tool{Name: "grown", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("I grew"), nil })
			return text("grew"), nil
		})
	srv.AddTool(&sdk.Tool{Name: "fetch_later", Description: "Once the file wait_for exists, GETs url through the proxy, then writes the file done.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ URL, WaitFor, Done string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			go fetchLater(in.URL, in.WaitFor, in.Done)
			return text("later"), nil
		})
	// Not an object schema: the SDK's AddTool refuses it, so the listing
	// is rewritten on the way out.
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*sdk.ListToolsResult); ok && err == nil {
				lr.Tools = append(lr.Tools, &sdk.Tool{Name: "stringly", InputSchema: map[string]any{"type": "string"}})
			}
			return res, err
		}
	})
}

// fetchLater GETs url once the file waitFor exists (a minute at most),
// after the call that asked for it returned, and then writes the file
// done with the status or the error.
func fetchLater(url, waitFor, done string) {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(waitFor); err == nil {
			break
		}
	}
	status := ""
	resp, err := http.Get(url)
	if err != nil {
		status = err.Error()
	} else {
		resp.Body.Close()
		status = resp.Status
	}
	os.WriteFile(done, []byte(status), 0o644)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// startProcess runs a helper process (a peer server) in its own process
// group for the length of the test.
func startProcess(t *testing.T, name string, args []string, env ...string) {
	t.Helper()
	proc := sandbox.Command(context.Background(), nil, name, args...)
	proc.Env = append(os.Environ(), env...)
	proc.Stderr = io.Discard
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		proc.Kill()
		proc.Wait()
	})
}
