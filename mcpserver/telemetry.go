package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/telemetry"
)

// requestIDKey is where the server's transports put a request's JSON-RPC id
// in its params._meta when the toolkit records telemetry: the SDK keeps the
// id to itself, and the span needs it (jsonrpc.request.id). The middleware
// takes it out again before anything else reads the request.
const requestIDKey = "io.quiverkit/jsonrpc.request.id"

// traced records each request the server receives as an MCP server span
// and its duration (see package telemetry), around the rest of the
// middleware and the handlers, so that a tools/call's execute_tool span is
// its child. It does nothing when the toolkit records no telemetry.
func (s *Server) traced(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		tel := s.tk.Telemetry()
		if tel == nil {
			return next(ctx, method, req)
		}
		r := telemetry.MCPRequest{Method: method, Transport: telemetry.TransportPipe}
		meta := requestMeta(req)
		r.Meta = meta
		if id, ok := meta[requestIDKey].(string); ok {
			r.RequestID = id
			delete(meta, requestIDKey)
		}
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.ID() != "" {
			r.SessionID, r.Transport = ss.ID(), telemetry.TransportTCP
		}
		if v, ok := req.(interface{ ProtocolVersion() string }); ok {
			r.ProtocolVersion = v.ProtocolVersion()
		}
		if i, ok := req.(*mcp.InitializeRequest); ok && r.ProtocolVersion == "" && i.Params != nil {
			r.ProtocolVersion = i.Params.ProtocolVersion // the version the client asks for
		}
		if c, ok := req.(*mcp.CallToolRequest); ok && s.lists(c.Params.Name) {
			r.Target = c.Params.Name // a name the server offers: bounded
		}
		ctx, op := tel.StartMCP(ctx, r)
		res, err := next(ctx, method, req)
		op.End(mcpResult(res, err))
		return res, err
	}
}

// requestMeta is req's params._meta, or nil: a request without params has
// none.
func requestMeta(req mcp.Request) map[string]any {
	p := req.GetParams()
	if p == nil {
		return nil
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return p.GetMeta()
}

// mcpResult is how the span and the metric record the answer: the JSON-RPC
// error's code, or tool_error for a tool result with isError.
func mcpResult(res mcp.Result, err error) telemetry.MCPResult {
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		code := strconv.FormatInt(rpcErr.Code, 10)
		return telemetry.MCPResult{ErrorType: code, RPCCode: code, Message: rpcErr.Message}
	case err != nil:
		return telemetry.MCPResult{ErrorType: telemetry.Other, Message: err.Error()}
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
		return telemetry.MCPResult{ErrorType: "tool_error"}
	}
	return telemetry.MCPResult{}
}

// withRequestID returns msg, one JSON-RPC message, with its id copied into
// params._meta under requestIDKey when it is a request (a call with an
// id); anything else, or anything it cannot read, is returned as it is.
func withRequestID(msg []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	id := requestIDText(m["id"])
	if id == "" || len(m["method"]) == 0 {
		return msg
	}
	params := map[string]json.RawMessage{}
	if raw := bytes.TrimSpace(m["params"]); len(raw) > 0 && string(raw) != "null" {
		if json.Unmarshal(raw, &params) != nil {
			return msg // params that are not an object: left to the SDK to refuse
		}
	}
	meta := map[string]json.RawMessage{}
	if raw := bytes.TrimSpace(params["_meta"]); len(raw) > 0 && string(raw) != "null" {
		if json.Unmarshal(raw, &meta) != nil {
			return msg
		}
	}
	var err error
	if meta[requestIDKey], err = json.Marshal(id); err != nil {
		return msg
	}
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return msg
	}
	if m["params"], err = json.Marshal(params); err != nil {
		return msg
	}
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// copyRequestID puts the id of the JSON-RPC request r carries into its
// params._meta (see withRequestID). A body over Options.MaxBodyBytes is
// left whole for the SDK to refuse.
func (s *Server) copyRequestID(r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, s.opts.MaxBodyBytes+1))
	if err != nil || int64(len(body)) > s.opts.MaxBodyBytes {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return
	}
	if b := withRequestID(body); int64(len(b)) <= s.opts.MaxBodyBytes {
		body = b
	}
	r.Body = readCloser{bytes.NewReader(body), r.Body}
	r.ContentLength = int64(len(body))
}

// readCloser reads from one reader and closes the request's body.
type readCloser struct {
	io.Reader
	io.Closer
}

// requestIDText renders a JSON-RPC id as jsonrpc.request.id spells it: a
// string as it is, a number as written; null or none is "".
func requestIDText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
