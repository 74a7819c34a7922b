package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
)

// escalateAfter is how many rejections in a row of the same call send it to
// the person, as the plugin tool system does: reviewers that keep refusing
// what the person keeps asking for should not have the last word.
const escalateAfter = 3

// reviewOption puts the [review] reviewers in front of the approver the
// command chose (the terminal prompt, --yes, the MCP client's user); nil
// when there is no [review] section. Every command that builds a toolkit —
// quiver call, run and serve — goes through it.
func (a *app) reviewOption(cfg *config.Config) (quiver.Option, error) {
	if cfg.Review == nil {
		return nil, nil
	}
	q := approve.Quorum{Timeout: time.Duration(cfg.Review.TimeoutSecs) * time.Second, Instructions: cfg.Review.Instructions}
	for i, r := range cfg.Review.Reviewers {
		m, err := a.model(cfg, driver.Spec{Provider: r.Provider.Name, Model: r.Model, BaseURL: r.BaseURL, API: r.API, KeyEnv: r.APIKeyEnv})
		if err != nil {
			return nil, fmt.Errorf("%s: review.reviewers[%d] (%s %s): %w", cfg.Path, i, r.Provider.Name, r.Model, err)
		}
		q.Reviewers = append(q.Reviewers, m)
	}
	return quiver.WithApproverWrapped(func(person policy.Approver) policy.Approver {
		return newReview(q, cfg.Review.Reviews, person)
	}), nil
}

// review is the approver of a toolkit with [review]: calls of the risk
// levels it covers go to the reviewers, others to the person. A call the
// reviewers reject escalateAfter times in a row goes to the person.
type review struct {
	reviewers policy.Approver // an approve.Quorum
	covers    func(risk string) bool
	// person decides what the reviewers do not cover, and calls they kept
	// rejecting; nil when nobody can be asked (then such calls are refused).
	person policy.Approver

	mu     sync.Mutex
	streak map[string]int // consecutive rejections, by call
}

func newReview(reviewers policy.Approver, covers func(string) bool, person policy.Approver) *review {
	return &review{reviewers: reviewers, covers: covers, person: person, streak: map[string]int{}}
}

// canEscalate reports whether someone can overrule the reviewers: --yes
// approves without asking, so it is nobody to escalate to.
func (r *review) canEscalate() bool { return r.person != nil && r.person != approve.Auto }

// Approve implements policy.Approver.
func (r *review) Approve(ctx context.Context, req policy.Request) (policy.Approval, error) {
	if !r.covers(string(req.Risk)) {
		return r.ask(ctx, req)
	}
	a, err := r.reviewers.Approve(ctx, req)
	if err != nil {
		return a, err
	}
	key := req.Tool + "\x00" + string(req.Arguments)
	r.mu.Lock()
	if a.Approved {
		delete(r.streak, key)
		r.mu.Unlock()
		return a, nil
	}
	r.streak[key]++
	n := r.streak[key]
	if n >= escalateAfter && r.canEscalate() {
		delete(r.streak, key)
	}
	r.mu.Unlock()
	switch {
	case n < escalateAfter:
		a.Reason += fmt.Sprintf(" (rejection %d of %d in a row before a person is asked)", n, escalateAfter)
		return a, nil
	case !r.canEscalate():
		a.Reason += fmt.Sprintf(" (rejected %d times in a row; there is no person to ask)", n)
		return a, nil
	}
	p, err := r.person.Approve(ctx, req)
	p.Reason = fmt.Sprintf("the reviewers rejected this call %d times in a row, so a person decided: %s", n, p.Reason)
	return p, err
}

// ask is the person's answer, or a refusal when there is nobody to ask, as
// the library's default approve.Deny refuses.
func (r *review) ask(ctx context.Context, req policy.Request) (policy.Approval, error) {
	if r.person == nil {
		return approve.Deny.Approve(ctx, req)
	}
	return r.person.Approve(ctx, req)
}

// reviewNote is how `quiver config check` describes the review in force.
func reviewNote(cfg *config.Config) string {
	if cfg.Review == nil {
		return "review: none ([review] absent); calls that ask go to the person"
	}
	return fmt.Sprintf("review: %d reviewer(s), majority of votes cast, a tie refuses; reviews %v calls; %d rejections in a row go to the person",
		len(cfg.Review.Reviewers), reviewedRisks(cfg.Review), escalateAfter)
}

func reviewedRisks(r *config.Review) []string {
	var out []string
	for _, l := range []string{"high", "low"} {
		if r.Reviews(l) {
			out = append(out, l)
		}
	}
	return out
}
