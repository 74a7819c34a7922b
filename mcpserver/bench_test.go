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
	return quiverHandler(b, quiver.WithTools(echo))
}

// quiverHandler is the MCP handler of a toolkit with opts over a temporary
// root that allows every call, closed when the benchmark ends.
func quiverHandler(b *testing.B, opts ...quiver.Option) http.Handler {
	tk, err := quiver.New(append([]quiver.Option{quiver.WithRoot(b.TempDir()), quiver.WithPolicy(policy.AllowAll())}, opts...)...)
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
	benchCalls(b, connectClients(b, h), "calls/s", func(i int, cs *mcp.ClientSession) error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": fmt.Sprintf("client %d", i)}})
		if err == nil && res.IsError {
			err = fmt.Errorf("call: %+v", res)
		}
		return err
	})
}

// connectClients serves h on a loopback port and connects benchClients
// sessions to it, closed when the benchmark ends.
func connectClients(b *testing.B, h http.Handler) []*mcp.ClientSession {
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
	return sessions
}

// benchCalls runs b.N iterations of iter spread over the sessions at once,
// and reports the throughput (as unit) and the median and 99th-percentile
// latency of one iteration. An iteration that fails stops its client.
func benchCalls(b *testing.B, sessions []*mcp.ClientSession, unit string, iter func(i int, cs *mcp.ClientSession) error) {
	latencies := make([][]time.Duration, len(sessions))
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i, cs := range sessions {
		n := b.N / len(sessions)
		if i < b.N%len(sessions) {
			n++
		}
		wg.Go(func() {
			own := make([]time.Duration, 0, n)
			for range n {
				t0 := time.Now()
				err := iter(i, cs)
				own = append(own, time.Since(t0))
				if err != nil {
					b.Error(err)
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
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), unit)
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
}
