package mcpserver

//lint:file-ignore SA1019 the logging capability is declared for the protocol versions Quiver serves (see New), through the deprecation window

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/tool"
)

// logCall sends the client one log record about a call that has ended —
// the logging capability the server declares — at level "info", or
// "warning" when the call failed. The SDK sends it only when the client
// asked for records at that level or below (logging/setLevel); a client
// that never asked gets none.
func logCall(ctx context.Context, req *mcp.CallToolRequest, callID string, code tool.Code, d time.Duration) {
	level, status := mcp.LoggingLevel("info"), "ok"
	if code != "" {
		level, status = "warning", string(code)
	}
	req.Session.Log(context.WithoutCancel(ctx), &mcp.LoggingMessageParams{Level: level, Logger: "quiver",
		Data: map[string]any{"tool": req.Params.Name, "call": callID, "status": status, "duration_ms": d.Milliseconds()}})
}
