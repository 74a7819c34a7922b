package quiver

import (
	"context"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/tool"
)

// telemetryConfig is the toolkit's telemetry: nil records nothing, and the
// pipeline then makes no OpenTelemetry call.
type telemetryConfig struct {
	tel *telemetry.Telemetry
}

// WithTelemetry records every call as an execute_tool span and in the
// tool metrics (package telemetry); the MCP server and the agent loop
// record theirs through the same Telemetry. nil (the default) records
// nothing. Package telemetry/otlp builds one from the OTEL_* variables.
func WithTelemetry(t *telemetry.Telemetry) Option {
	return func(tk *Toolkit) { tk.tel = t }
}

// Telemetry returns what [WithTelemetry] set, nil if nothing.
func (tk *Toolkit) Telemetry() *telemetry.Telemetry { return tk.tel }

// startSpan starts the call's span, when the toolkit records telemetry.
func (tk *Toolkit) startSpan(ctx context.Context, c *call) context.Context {
	if tk.tel == nil {
		return ctx
	}
	ctx, c.span = tk.tel.StartTool(ctx, c.Name, c.ID)
	return ctx
}

// endSpan ends the call's span with what became of the call. Content is
// quoted through the audit record's Redactor, and only when captured.
func (tk *Toolkit) endSpan(ctx context.Context, c *call, out *Output) {
	if c.span == nil {
		return
	}
	o := telemetry.ToolOutcome{Decision: string(c.verdict.Decision), Rule: c.verdict.Rule,
		Approver: c.approval.By, OutputRef: out.Content.OutputRef, BytesStored: tk.storedSize(ctx, out.Content.OutputRef), Sandbox: c.profileName()}
	if c.entry != nil {
		o.Resolved, o.Provider, o.Type = true, c.entry.Provider, telemetry.ToolTypeFunction
		if c.entry.Provider == "mcp" {
			o.Type = telemetry.ToolTypeExtension
		}
	}
	if c.tool != nil && c.verdict.Decision != "" {
		o.Risk = string(c.risk)
	}
	if out.Err != nil {
		o.Code, o.Message = string(out.Err.Code), tk.auditRedactor().Text(audit.Clip(out.Err.Message, audit.MaxString))
	}
	if tk.tel.CapturesContent() {
		if args := c.quotedArgs(); len(args) > 0 {
			o.Arguments = string(tk.auditRedactor().Arguments(args))
		}
		if out.Err == nil {
			o.Result = tk.quoteResult(out.Content)
		}
	}
	c.span.End(o)
}

// quotedArgs are the arguments a record quotes: as the tool received them,
// or as they were sent when the call failed before it was resolved.
func (c *call) quotedArgs() []byte {
	if c.args != nil {
		return c.args
	}
	return c.Arguments
}

// quoteResult is a result as a span quotes it, bounded and redacted as the
// audit record quotes arguments: a JSON result through the Redactor's walk
// (a secret key's value replaced, however deep), any other as text, cut at
// audit.MaxTotal, its assignments and options naming secrets redacted.
func (tk *Toolkit) quoteResult(res tool.Result) string {
	r := tk.auditRedactor()
	if len(res.Parts) == 1 && res.Parts[0].Type == tool.PartJSON {
		return string(r.Arguments(res.Parts[0].JSON))
	}
	return r.Text(audit.Clip(res.Text(), audit.MaxTotal))
}

// profileName names the sandbox profile the call's processes ran under:
// the write scope's, "no-process" for a tool that declared it starts none,
// "off" where the operator turned confinement off; "" for a call that did
// not reach execution.
func (c *call) profileName() string {
	switch {
	case c.box == nil:
		return ""
	case c.tool.InProcess:
		return "no-process"
	case c.box.Off:
		return "off"
	}
	return string(c.box.Scope)
}

// storedSize is how many bytes the output cache holds under ref: what the
// cache step stored, or what a tool streamed there itself (exec_command).
func (tk *Toolkit) storedSize(ctx context.Context, ref string) int64 {
	if ref == "" || tk.outputStore == nil {
		return 0
	}
	o, err := tk.outputStore.Open(ctx, ref)
	if err != nil {
		return 0
	}
	defer o.Close()
	return o.Size
}
