package mcpserver_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/tool"
)

// benchClients is how many clients call at once.
const benchClients = 32

// BenchmarkEchoOverHTTP measures tools/call of a trivial echo tool over
// streamable HTTP with 32 concurrent clients: Quiver serving it through its
// whole pipeline (resolve, policy, validation, execution, audit), and a bare
// go-sdk server with the same tool added with mcp.AddTool. It reports
// throughput and the median and 99th-percentile latency of one call.
// scripts/bench-mcp runs it and compares the two.
func BenchmarkEchoOverHTTP(b *testing.B) {
	b.Run("server=quiver", func(b *testing.B) { benchEcho(b, quiverEcho(b)) })
	b.Run("server=bare", func(b *testing.B) { benchEcho(b, bareEcho()) })
}

func quiverEcho(b *testing.B) http.Handler {
	echo := tool.Func("echo", "Echoes text.", func(_ context.Context, _ tool.Context, in echoIn) (echoOut, error) {
		return echoOut{Text: in.Text, Length: len(in.Text)}, nil
	}, tool.ReadOnly())
	tk, err := quiver.New(quiver.WithRoot(b.TempDir()), quiver.WithTools(echo),
		quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tk.Close() })
	srv, err := mcpserver.New(b.Context(), tk, mcpserver.Options{MaxSessions: 2 * benchClients})
	if err != nil {
		b.Fatal(err)
	}
	return srv.Handler()
}

func bareEcho() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
			return nil, echoOut{Text: in.Text, Length: len(in.Text)}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
}

func benchEcho(b *testing.B, h http.Handler) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: h}
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
			args := map[string]any{"text": fmt.Sprintf("client %d", i)}
			for range n {
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args})
				own = append(own, time.Since(t0))
				if err != nil || res.IsError {
					b.Errorf("call: %v %+v", err, res)
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
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
}
