package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/tool"
)

// DefaultProgressInterval is the default of Options.ProgressInterval: well
// inside the shortest request timeout clients use (the Inspector's 10
// seconds, the TypeScript SDK's 60).
const DefaultProgressInterval = 2 * time.Second

// progressReports sends a progress notification every interval while the
// call of ctx runs, when its client gave a progress token: the progress is
// the seconds elapsed (which only grows, as the protocol asks), the message
// says so and adds the tool's status (exec_command: the tail of its output,
// bounded by tool.MaxStatusBytes). Clients that reset their timeout on
// progress then keep a long build alive. The returned ctx carries the
// [tool.Progress] the tool reports to; stop ends the reports and returns
// once none can be sent any more, so none follows the call's result.
func (s *Server) progressReports(ctx context.Context, req *mcp.CallToolRequest) (context.Context, func()) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return ctx, func() {}
	}
	p := &tool.Progress{}
	ctx = tool.WithProgress(ctx, p)
	start := time.Now()
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(s.opts.ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			elapsed := time.Since(start)
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: elapsed.Seconds(), Message: progressMessage(elapsed, p.Status())})
			if err != nil {
				s.opts.Logger.DebugContext(ctx, "sending progress", "err", err)
			}
		}
	}()
	return ctx, func() {
		close(done)
		<-ended
	}
}

// progressMessage is a report's text: the time elapsed, then the status.
func progressMessage(elapsed time.Duration, status string) string {
	msg := fmt.Sprintf("running for %s", elapsed.Round(time.Second))
	if status = strings.TrimRight(status, "\n"); status != "" {
		msg += "; last output:\n" + status
	}
	return msg
}
