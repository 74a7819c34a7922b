//go:build unix

package tools

import (
	"context"
	"testing"
	"time"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
)

// BenchmarkExecProgress is the cost of progress reports on a chatty
// command's throughput: `yes | head -c 1G` through exec_command, without a
// progress reporter and with one read every 10 ms (200 times as often as
// the MCP server's 2 s). Run with -benchtime=1x -count=5 and compare MB/s.
func BenchmarkExecProgress(b *testing.B) {
	const size = 1 << 30
	for _, tt := range []struct {
		name  string
		every time.Duration
	}{{"none", 0}, {"every10ms", 10 * time.Millisecond}} {
		b.Run(tt.name, func(b *testing.B) {
			e := newExecEnv(b, "yes", "head")
			tl := newExecCommand()
			raw, err := tooltest.Validate(tl, `{"command":"yes | head -c 1073741824","timeout_secs":600}`)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			for b.Loop() {
				ctx, stop := context.WithCancel(context.Background())
				if tt.every > 0 {
					p := &tool.Progress{}
					ctx = tool.WithProgress(ctx, p)
					go func() {
						for t := time.NewTicker(tt.every); ; {
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
				scope.Provide(tool.CommandGateKey.ID, e.gate)
				res, err := tl.Execute(ctx, tool.NewContext("bench", tl.Name, nil, scope), raw)
				scope.Close()
				stop()
				if err != nil || res.Output.(*ExecCommandOutput).TotalBytes != size {
					b.Fatalf("%v %+v", err, res.Output)
				}
			}
		})
	}
}
