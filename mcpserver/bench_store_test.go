package mcpserver_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/internal/redistest"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/outputcache/redisstore"
	"github.com/quiverkit/quiver/policy"
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
	tk, err := quiver.New(quiver.WithRoot(b.TempDir()), quiver.WithTools(dump, read),
		quiver.WithPolicy(policy.AllowAll()), quiver.WithOutputCache(store, outputcache.Budget{}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tk.Close() })
	srv, err := mcpserver.New(b.Context(), tk, mcpserver.Options{MaxSessions: 2 * benchClients})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
	url := "http://" + ln.Addr().String() + "/mcp"
	transport := &http.Transport{MaxIdleConns: 4 * benchClients, MaxIdleConnsPerHost: 4 * benchClients}
	b.Cleanup(transport.CloseIdleConnections)
	sessions := make([]*mcp.ClientSession, benchClients)
	for i := range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(),
			&mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: transport}},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		sessions[i] = cs
	}
	latencies := make([][]time.Duration, benchClients)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i, cs := range sessions {
		n := b.N / benchClients
		if i < b.N%benchClients {
			n++
		}
		wg.Go(func() {
			own := make([]time.Duration, 0, n)
			for range n {
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dump", Arguments: map[string]any{}})
				if err != nil || res.IsError {
					b.Errorf("dump: %v %+v", err, res)
					return
				}
				ref := refIn(res)
				if ref == "" {
					b.Errorf("dump's output was not stored: %+v", res.Content)
					return
				}
				res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: outputcache.ReadTool,
					Arguments: map[string]any{"ref_id": ref, "offset": 1000, "limit": 100}})
				own = append(own, time.Since(t0))
				if err != nil || res.IsError {
					b.Errorf("read %s: %v %+v", ref, err, res)
					return
				}
			}
			latencies[i] = own
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(latencies...)
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "iters/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
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
