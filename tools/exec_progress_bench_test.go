//go:build unix

package tools

import (
	"context"
	"testing"
	"time"

	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
)

// BenchmarkExecProgress is the cost of progress reports on a chatty
// command's throughput: `yes | head -c 1G` through exec_command, without a
// progress reporter and with one read every 10 ms (200 times as often as
// the MCP server's 2 s). Each iteration runs the two back to back, in
// alternating order, so that both see the same machine: on a shared one,
// the load drifts over minutes, and two sub-benchmarks run one after the
// other measure the drift. It reports each one's MB/s and the overhead in
// percent. Run with -benchtime=1x -count=6 and read it with benchstat.
func BenchmarkExecProgress(b *testing.B) {
	const size = 1 << 30
	e := newExecEnv(b, "yes", "head")
	// The whole output goes to a store that counts it, not to a file: a
	// gigabyte a run would fill the disk.
	e.override(outputcache.Key.ID, func(context.Context) (any, error) { return outputcache.Store(&discardStore{}), nil })
	tl := newExecCommand()
	raw, err := tooltest.Validate(tl, `{"command":"yes | head -c 1073741824","timeout_secs":600}`)
	if err != nil {
		b.Fatal(err)
	}
	run := func(every time.Duration) time.Duration {
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		if every > 0 {
			p := &tool.Progress{}
			ctx = tool.WithProgress(ctx, p)
			go func() {
				for t := time.NewTicker(every); ; {
					select {
					case <-ctx.Done():
						t.Stop()
						return
					case <-t.C:
						p.Status()
					}
				}
			}()
		}
		scope := tool.NewScope(nil, e.shared)
		defer scope.Close()
		scope.Provide(tool.CommandGateKey.ID, e.gate)
		start := time.Now()
		res, err := tl.Execute(ctx, tool.NewContext("bench", tl.Name, nil, scope), raw)
		took := time.Since(start)
		if err != nil || res.Output.(*ExecCommandOutput).TotalBytes != size {
			b.Fatalf("%v %+v", err, res.Output)
		}
		return took
	}
	var none, with time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			none += run(0)
			with += run(10 * time.Millisecond)
		} else {
			with += run(10 * time.Millisecond)
			none += run(0)
		}
		n++
	}
	mbps := func(d time.Duration) float64 { return float64(size) * float64(n) / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(none), "MB/s-none")
	b.ReportMetric(mbps(with), "MB/s-progress")
	b.ReportMetric(100*(with.Seconds()-none.Seconds())/none.Seconds(), "%overhead")
}
