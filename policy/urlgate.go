package policy

import (
	"context"

	"github.com/quiverkit/quiver/tool"
)

// URLGate returns the gate a web tool consults, in one call of t, about
// every URL it is about to request: the pipeline decided the call on the
// URL it names, but a redirect can lead anywhere. Each URL is judged as a
// call of its own naming it would be ([Policy.Decide] with risk), and
//
//   - a deny refuses it: deny = ["web_fetch(domain:x.example)"] holds for a
//     redirect to x.example as for a first URL there;
//   - an ask refuses it, unless a person approved this call and the same
//     rule asked about it ([policy.tools] web_fetch = "ask" asks about
//     every fetch, and whoever approved one approved where it leads; a
//     domain an ask rule names was never shown to anybody);
//   - a host the network list does not allow ([Policy.WithNetwork]) asks,
//     and so is refused, unless a person approved sending this call's data
//     to that very host: a redirect from a listed host to another, or from
//     an approved host to another, is refused;
//   - an allow lets it through, so with default = "deny" and only
//     web_fetch(domain:docs.example) allowed, a redirect elsewhere is
//     refused as well.
//
// v and approved are the call's own verdict and whether a person approved it.
func (p *Policy) URLGate(t *tool.Tool, risk tool.Risk, v Verdict, approved bool) tool.URLGate {
	return &urlGate{p: p, tool: t, risk: risk, verdict: v, approved: approved}
}

type urlGate struct {
	p        *Policy
	tool     *tool.Tool
	risk     tool.Risk
	verdict  Verdict
	approved bool
}

func (g *urlGate) CheckURL(_ context.Context, rawURL string) error {
	hop := g.p.Decide(g.tool, []tool.Subject{{Kind: tool.SubjectURL, Value: rawURL}}, g.risk)
	switch {
	case hop.Decision == Deny:
		return urlRefused(rawURL, hop.Rule, "")
	case hop.Decision == Ask && !(g.approved && (hop.Rule == g.verdict.Rule || approvedHosts(hop, g.verdict))):
		return urlRefused(rawURL, hop.Rule, "; nobody was asked about it: fetch it as a call of its own to be asked")
	}
	return nil
}

func urlRefused(rawURL, rule, hint string) error {
	return tool.Errorf(tool.CodeToolNotAllowed, "%s refused by policy (%s)%s", rawURL, rule, hint).
		WithDetail("url", rawURL).WithDetail("rule", rule)
}
