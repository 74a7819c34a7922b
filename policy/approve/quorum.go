package approve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/policy"
)

// DefaultReviewTimeout bounds each reviewer of a [Quorum] that sets none.
const DefaultReviewTimeout = 60 * time.Second

// Quorum asks reviewer models to vote on a call and follows the majority of
// the votes cast. A reviewer that fails — an error, a timeout, a reply that
// is not a well-formed vote — casts no vote. A tie refuses, no vote cast
// refuses, and no reviewers configured refuses: a call is approved only when
// more reviewers said yes than no.
type Quorum struct {
	Reviewers []driver.Model
	// Timeout bounds each reviewer's answer; 0 means DefaultReviewTimeout.
	Timeout time.Duration
	// Instructions replace the reviewers' default system prompt (what the
	// host considers safe, say).
	Instructions string
	// Reasoning lets reviewers think before they vote (a thinking budget,
	// a reasoning effort), as the agent's own model does. With it the vote
	// is asked for, not forced: Anthropic refuses a forced tool choice with
	// thinking on. A reviewer that answers without voting casts no vote.
	Reasoning driver.ReasoningConfig
}

const reviewerInstructions = `You review tool calls an AI agent wants to make in a software workspace before they run.
Approve a call only if it is a reasonable step for a coding task and cannot cause harm beyond the workspace:
no deleting or overwriting data the task does not ask for, no leaking secrets, no network or system changes the task does not need.
When in doubt, reject. Answer by calling the vote tool, with a one-sentence reason.`

// voteTool is what a reviewer must call: strict, two required fields.
var voteTool = driver.ToolDefinition{
	Name:        "vote",
	Description: "Cast your vote on the tool call under review.",
	Strict:      true,
	Parameters: &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"approve": {Type: "boolean", Description: "true to let the call run, false to refuse it"},
			"reason":  {Type: "string", Description: "why, in one sentence"},
		},
		Required:             []string{"approve", "reason"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	},
}

// ballot is one reviewer's answer: a vote, or why it cast none.
type ballot struct {
	approve bool
	reason  string
	err     error
}

// Approve implements policy.Approver. Its Reason lists every reviewer's vote
// or failure, in reviewer order.
func (q Quorum) Approve(ctx context.Context, req policy.Request) (policy.Approval, error) {
	if len(q.Reviewers) == 0 {
		return policy.Approval{By: "quorum", Reason: "no reviewers are configured, so nobody approved the call"}, nil
	}
	ballots := make([]ballot, len(q.Reviewers))
	var wg sync.WaitGroup
	for i, m := range q.Reviewers {
		wg.Go(func() { ballots[i] = q.review(ctx, m, req) })
	}
	wg.Wait()
	yes, no := 0, 0
	lines := make([]string, len(ballots))
	for i, b := range ballots {
		switch {
		case b.err != nil:
			lines[i] = fmt.Sprintf("reviewer %d: no vote (%v)", i+1, b.err)
		case b.approve:
			yes++
			lines[i] = fmt.Sprintf("reviewer %d: approve (%s)", i+1, b.reason)
		default:
			no++
			lines[i] = fmt.Sprintf("reviewer %d: reject (%s)", i+1, b.reason)
		}
	}
	var verdict string
	switch {
	case yes+no == 0:
		verdict = "no reviewer voted, so the call is refused"
	case yes > no:
		verdict = fmt.Sprintf("approved %d-%d", yes, no)
	case yes == no:
		verdict = fmt.Sprintf("tied %d-%d, so the call is refused", yes, no)
	default:
		verdict = fmt.Sprintf("rejected %d-%d", no, yes)
	}
	return policy.Approval{Approved: yes > no, By: "quorum", Reason: verdict + "; " + strings.Join(lines, "; ")}, nil
}

// review asks one reviewer, within the timeout, and reads its vote.
func (q Quorum) review(ctx context.Context, m driver.Model, req policy.Request) ballot {
	timeout := q.Timeout
	if timeout <= 0 {
		timeout = DefaultReviewTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	system := q.Instructions
	if system == "" {
		system = reviewerInstructions
	}
	choice := driver.Choose(voteTool.Name)
	if q.Reasoning != (driver.ReasoningConfig{}) {
		choice = driver.ToolChoice{Mode: driver.ToolChoiceAuto}
	}
	resp, err := m.Generate(ctx, driver.Request{
		Messages:   []driver.Message{driver.SystemMessage(system), driver.UserMessage(describe(req))},
		Tools:      []driver.ToolDefinition{voteTool},
		ToolChoice: choice,
		Reasoning:  q.Reasoning,
	})
	if err != nil {
		return ballot{err: err}
	}
	return readVote(resp)
}

// describe is the call as a reviewer sees it.
func describe(req policy.Request) string {
	args := string(req.Arguments)
	if args == "" {
		args = "{}"
	}
	return fmt.Sprintf("Tool: %s\nRisk: %s\nPolicy rule that asked for review: %s\nArguments:\n%s",
		req.Tool, req.Risk, req.Rule, args)
}

// readVote takes the first vote call of resp; a reply without one, or with
// one whose approve is missing or not a boolean, casts no vote.
func readVote(resp *driver.Response) ballot {
	for _, c := range resp.ToolCalls {
		if c.Name != voteTool.Name || c.Arguments == nil {
			continue
		}
		var v struct {
			Approve *bool  `json:"approve"`
			Reason  string `json:"reason"`
		}
		if err := json.Unmarshal(c.Arguments, &v); err != nil {
			return ballot{err: fmt.Errorf("malformed vote %s: %w", c.Arguments, err)}
		}
		if v.Approve == nil {
			return ballot{err: fmt.Errorf("vote without approve: %s", c.Arguments)}
		}
		if v.Reason == "" {
			v.Reason = "no reason given"
		}
		return ballot{approve: *v.Approve, reason: v.Reason}
	}
	return ballot{err: errors.New("the reviewer did not call vote")}
}
