package approve

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/internal/visible"
	"github.com/quiverkit/quiver/policy"
)

// Session is what [Elicit] needs of the MCP server session a call came
// through. *mcp.ServerSession has both methods.
type Session interface {
	InitializeParams() *mcp.InitializeParams
	Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error)
}

type sessionKey struct{}

// WithSession returns ctx carrying the MCP session a call came through, for
// [Elicit] to ask its user. The MCP server sets it on every tools/call.
func WithSession(ctx context.Context, s Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// DefaultElicitTimeout is how long [Elicit] waits for the user's answer when
// its Timeout is zero.
const DefaultElicitTimeout = 5 * time.Minute

// MaxElicitBytes bounds the question [Elicit] sends. Nothing of a call is
// cut from it: a call whose question would be longer is refused without
// asking, saying its size and sha256, since approving it would approve text
// nobody could be shown.
const MaxElicitBytes = 256 << 10

// Elicit asks the person behind the MCP client that made the call, through
// MCP elicitation: the client shows the tool, its risk, the rule that asked
// and the arguments, and the call runs only if the user accepts. Declining,
// cancelling, not answering within Timeout, or a session that breaks while
// asking all refuse the call.
//
// A client that cannot be asked — it did not declare the elicitation
// capability, or the call did not come through an MCP session at all — gets
// the Fallback decision: [policy.Deny] unless Fallback is exactly
// [policy.Allow] ([serve] ask_fallback in quiver.toml). A fallback yes is
// recorded as approver "elicit-fallback", never as the user's.
type Elicit struct {
	Fallback policy.Decision
	Timeout  time.Duration
}

// Approve implements policy.Approver.
func (e Elicit) Approve(ctx context.Context, req policy.Request) (policy.Approval, error) {
	s, _ := ctx.Value(sessionKey{}).(Session)
	if s == nil {
		return e.fallback(req, "the call did not come through an MCP session"), nil
	}
	if !canElicit(s) {
		return e.fallback(req, "the MCP client does not support elicitation"), nil
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultElicitTimeout
	}
	question := Question(req)
	if len(question) > MaxElicitBytes {
		sum := sha256.Sum256(req.Arguments)
		return policy.Approval{By: "elicit", Reason: fmt.Sprintf(
			"the call is too large to show for approval (%d bytes of arguments, sha256 %x; the question may hold %d bytes): "+
				"nobody was asked; split the call%s", len(req.Arguments), sum, MaxElicitBytes, allowHint(", or ", req))}, nil
	}
	askCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := s.Elicit(askCtx, &mcp.ElicitParams{
		Mode:            "form",
		Message:         question,
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	})
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(askCtx.Err(), context.DeadlineExceeded):
		return policy.Approval{By: "elicit", Reason: fmt.Sprintf("no answer from the user within %s", timeout)}, nil
	case err != nil:
		return policy.Approval{By: "elicit"}, fmt.Errorf("asking the MCP client's user: %w", err)
	case res.Action == "accept":
		return policy.Approval{Approved: true, By: "elicit"}, nil
	case res.Action == "decline":
		return policy.Approval{By: "elicit", Reason: "declined by the user"}, nil
	}
	return policy.Approval{By: "elicit", Reason: "the user dismissed the request without approving it"}, nil
}

func (e Elicit) fallback(req policy.Request, why string) policy.Approval {
	if e.Fallback == policy.Allow {
		return policy.Approval{Approved: true, By: "elicit-fallback"}
	}
	return policy.Approval{By: "elicit-fallback", Reason: fmt.Sprintf(
		"approval required (%s) but %s%s, or change [serve] ask_fallback",
		req.Rule, why, allowHint("; ", req))}
}

// canElicit reports whether the client declared form elicitation. An
// elicitation capability naming neither mode means form, as in protocol
// versions before modes existed.
func canElicit(s Session) bool {
	p := s.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	c := p.Capabilities.Elicitation
	return c.Form != nil || c.URL == nil
}

// Question is the text a person is shown when asked about req: the tool,
// its risk, the rule that asked, and every argument whole, as [Show] renders
// them (control and invisible characters as escapes, for the client may
// print the message on a terminal).
func Question(req policy.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Quiver wants to run %s (risk %s; %s).\n\nArguments:\n%s\n\n",
		visible.String(req.Tool), req.Risk, visible.String(req.Rule), Show(req))
	b.WriteString("Accept to run this call once; decline to refuse it.")
	switch {
	case len(req.Suggest) > 0:
		fmt.Fprintf(&b, " To stop being asked, allow it in quiver.toml with %s.", RulesText(req.Suggest))
	case req.NoSuggest != "":
		fmt.Fprintf(&b, " No allow rule in quiver.toml would stop the asking: %s.", req.NoSuggest)
	}
	return b.String()
}
