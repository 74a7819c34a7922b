package mcpserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/internal/redistest"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/outputcache/redisstore"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// BenchmarkStoreOverHTTP measures what the output store costs one replica
// of quiver serve, with 32 concurrent clients over streamable HTTP: each
// iteration is a call whose 100 KB output is over the message budget, so
// the cache step stores it whole, then a tool_output_cache read of 100
// lines from the middle of it by ref. The directory store (the default)
// and the Redis store (a real redis-server on a loopback port) take the
// same calls. scripts/bench-mcp STORE=1 runs it.
func BenchmarkStoreOverHTTP(b *testing.B) {
	b.Run("store=dir", func(b *testing.B) {
		s, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		benchStore(b, s)
	})
	b.Run("store=redis", func(b *testing.B) {
		srv := redistest.Start(b, true)
		s, err := redisstore.New(redisstore.Options{URL: srv.URL()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		benchStore(b, s)
	})
}

// bigText is the 100 KB output: 2,000 numbered lines of 50 bytes.
var bigText = func() string {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "line %06d of the output that goes to the store ....\n", i)
	}
	return sb.String()
}()

type dumpIn struct{}

// dumpOut renders as its text, as a command's output does.
type dumpOut struct{ text string }

func (o *dumpOut) Render() tool.Result { return tool.Text(o.text) }

func benchStore(b *testing.B, store outputcache.Store) {
	dump := tool.Func("dump", "Prints 100 KB.", func(context.Context, tool.Context, dumpIn) (*dumpOut, error) {
		return &dumpOut{bigText}, nil
	}, tool.ReadOnly())
	var read *tool.Tool
	for _, t := range tools.All() {
		if t.Name == outputcache.ReadTool {
			read = t
		}
	}
	h := quiverHandler(b, quiver.WithTools(dump, read), quiver.WithOutputCache(store, outputcache.Budget{}))
	benchCalls(b, connectClients(b, h), "iters/s", func(_ int, cs *mcp.ClientSession) error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dump", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			return fmt.Errorf("dump: %v %+v", err, res)
		}
		ref := refIn(res)
		if ref == "" {
			return fmt.Errorf("dump's output was not stored: %+v", res.Content)
		}
		res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: outputcache.ReadTool,
			Arguments: map[string]any{"ref_id": ref, "offset": 1000, "limit": 100}})
		if err != nil || res.IsError {
			return fmt.Errorf("read %s: %v %+v", ref, err, res)
		}
		return nil
	})
}

// refIn finds the ref the trimmed view's marker names.
func refIn(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			if _, rest, ok := strings.Cut(tc.Text, "ref="); ok && len(rest) >= 30 {
				return rest[:30]
			}
		}
	}
	return ""
}
