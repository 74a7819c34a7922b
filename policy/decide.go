package policy

import (
	"slices"
	"strings"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// hits is what one call matched: the input of the decision table.
type hits struct {
	deny, ask string   // the first deny / ask rule a subject matches
	allow     string   // the allow rules that together cover the call
	bySpec    bool     // allow came from specifier rules
	protected string   // the protected path a writing call touches
	egress    []string // the hosts the call sends data to that the network list does not allow
	lowRiskBy string   // what vouched for the call's low rating, when not the tool itself (tool.Rating.By)
}

// verdict is the decision table of the package documentation, row by row:
// a deny anywhere, then an ask anywhere, then an allow anywhere, then the
// default; a call that writes a protected path and came out allowed is
// asked about instead. Decide, Gate and Offer all read it, so that what a
// tool is offered as and what its calls get cannot drift apart.
func (p *Policy) verdict(t *tool.Tool, risk tool.Risk, h hits) Verdict {
	byTools, named := p.tools[t.Name]
	// Built only when it decides: verdict runs several times a call.
	toolsRule := func() string { return "tools." + t.Name + " = " + string(byTools) }
	var v Verdict
	switch {
	case h.deny != "":
		return Verdict{Decision: Deny, Rule: "deny: " + h.deny}
	case named && byTools == Deny:
		return Verdict{Decision: Deny, Rule: toolsRule()}
	case p.scopeForbids(t, risk):
		return Verdict{Decision: Deny, Rule: "write scope read-only (the call may change files)"}
	case h.ask != "":
		v = Verdict{Decision: Ask, Rule: "ask: " + h.ask}
	case named && byTools == Ask:
		v = Verdict{Decision: Ask, Rule: toolsRule()}
	case h.allow != "":
		v = Verdict{Decision: Allow, Rule: "allow: " + h.allow, BySpecifier: h.bySpec}
	case named && byTools == Allow:
		v = Verdict{Decision: Allow, Rule: toolsRule()}
	case p.def != Deny && risk == tool.RiskLow && len(h.egress) == 0:
		v = Verdict{Decision: Allow, Rule: "default for low-risk tools", ByLowRisk: true}
		if h.lowRiskBy != "" {
			v.Rule = h.lowRiskBy // an operator's entry let it through: name it
		}
	case len(h.egress) > 0:
		v = p.egressVerdict(h.egress)
	default:
		v = Verdict{Decision: p.def, Rule: "default = " + string(p.def), ByDefault: true}
	}
	if h.protected != "" && v.Decision != Deny {
		return Verdict{Decision: Ask, Rule: "protected path " + h.protected + " (writing it always asks)", Protected: h.protected}
	}
	return v
}

// scopeForbids reports whether the write scope refuses a call: under
// read-only, every call that may change files ([tool.Tool.MayChangeFiles]).
// Rating a call low-risk is not enough to pass: the tool must also declare
// that such calls change nothing ([tool.Tool.ReadOnlyWhenLowRisk]).
func (p *Policy) scopeForbids(t *tool.Tool, risk tool.Risk) bool {
	return p.scope == sandbox.ReadOnly && t.MayChangeFiles(risk)
}

// Decide is the call-level decision, made on validated arguments: subjects
// are what the call acts on (paths relative to the workspace, as
// [ResolveSubjects] gives them: each path as written and as resolved;
// commands; URLs) and risk is the call's risk.
func (p *Policy) Decide(t *tool.Tool, subjects []tool.Subject, risk tool.Risk) Verdict {
	return p.DecideRated(t, subjects, tool.Rating{Risk: risk})
}

// DecideRated is [Policy.Decide] for a call's whole rating: a call allowed
// for being low-risk on the word of something other than its tool (an
// [exec] low_risk_commands entry, [tool.Rating].By) names that as its rule,
// so that the audit record says which entry let it run.
func (p *Policy) DecideRated(t *tool.Tool, subjects []tool.Subject, r tool.Rating) Verdict {
	h := p.match(t, subjects, r.Risk)
	h.lowRiskBy = r.By
	return p.verdict(t, r.Risk, h)
}

// match finds what the subjects hit. Deny and ask rules hit if any subject
// (any spelling of a path, any simple command) matches; allow rules must
// cover every subject. Protected paths are looked for among the subjects of
// a call that may change files, by the same test the read-only scope uses.
func (p *Policy) match(t *tool.Tool, subjects []tool.Subject, risk tool.Risk) hits {
	var h hits
	cmds := commandsOf(subjects)
	for _, l := range []struct {
		hit   *string
		rules []Rule
	}{{&h.deny, p.deny}, {&h.ask, p.ask}} {
		for _, r := range l.rules {
			if r.matchesTool(t.Name) && r.matchesAny(subjects, cmds) {
				*l.hit = r.String()
				break
			}
		}
	}
	if r, bySpec, ok := p.allowedBy(t.Name, subjects, cmds); ok {
		h.allow, h.bySpec = r, bySpec
	}
	h.egress = p.egress(subjects)
	if t.MayChangeFiles(risk) {
		for _, s := range subjects {
			if s.Kind != tool.SubjectPath {
				continue
			}
			if e, ok := p.protects(cleanSubjectPath(s.Value)); ok {
				h.protected = e
				break
			}
		}
	}
	return h
}

// Offer is what the policy says about a tool before any call is seen.
type Offer struct {
	// Decision is what a call gets that no specifier rule matches, at the
	// tool's own risk.
	Decision Decision
	// Rule is what makes Decision.
	Rule string
	// Some lists the other decisions some calls get: through specifier
	// rules (edit(src/**)), or because the tool rates each call's risk
	// (exec_command rates git status low). Sorted: allow, ask, deny.
	Some []Decision
}

// Offered reports whether a model should be offered the tool: false when
// every call would be refused.
func (o Offer) Offered() bool { return o.Decision != Deny || len(o.Some) > 0 }

// String is how `quiver tools` shows the offer: "allow", "deny",
// "ask (some calls allowed)", "allow (some calls asked, some denied)".
func (o Offer) String() string {
	if len(o.Some) == 0 {
		return string(o.Decision)
	}
	words := map[Decision]string{Allow: "allowed", Ask: "asked", Deny: "denied"}
	var parts []string
	for _, d := range o.Some {
		parts = append(parts, "some "+words[d])
	}
	return string(o.Decision) + " (" + strings.Replace(strings.Join(parts, ", "), "some ", "some calls ", 1) + ")"
}

// Offer summarises the decisions t's calls can get. It runs the decision
// table over every combination that could occur — each kind of specifier
// rule naming the tool matching or not, and each risk the tool can rate a
// call — without looking at any arguments. Writes to protected paths,
// which always ask, are left out: they would mark every writing tool.
func (p *Policy) Offer(t *tool.Tool) Offer {
	// Each kind of rule offers its bare rule, which every call hits, or
	// else "no hit" and, when a specifier rule names the tool, a hit.
	var choices [3][]string
	var backing [3][2]string // at most two choices each; kept off the heap
	for i, rules := range [3][]Rule{p.deny, p.ask, p.allow} {
		choices[i] = backing[i][:1]
		for _, r := range rules {
			if !r.matchesTool(t.Name) {
				continue
			}
			if r.Spec == "" {
				backing[i][0] = r.String()
				choices[i] = backing[i][:1]
				break
			}
			if len(choices[i]) == 1 {
				choices[i] = append(choices[i], r.String())
			}
		}
	}
	base := p.verdict(t, t.Risk, hits{deny: choices[0][0], ask: choices[1][0], allow: choices[2][0]})
	o := Offer{Decision: base.Decision, Rule: base.Rule}
	risks := []tool.Risk{t.Risk}
	if t.CallRisk != nil {
		risks = []tool.Risk{tool.RiskLow, tool.RiskHigh}
	}
	egress := [][]string{nil}
	if p.mayReachUnlisted(t) {
		egress = append(egress, []string{"a host [sandbox] network does not list"})
	}
	for _, risk := range risks {
		for _, d := range choices[0] {
			for _, a := range choices[1] {
				for _, l := range choices[2] {
					for _, e := range egress {
						v := p.verdict(t, risk, hits{deny: d, ask: a, allow: l, egress: e})
						if v.Decision != o.Decision && !slices.Contains(o.Some, v.Decision) {
							o.Some = append(o.Some, v.Decision)
						}
					}
				}
			}
		}
	}
	slices.SortFunc(o.Some, func(a, b Decision) int { return strictness(a) - strictness(b) })
	return o
}

// Gate is the tool-level check, made before the arguments are looked at: a
// tool every call of which would be refused — named bare in deny, denied
// in [Config.Tools], changing files under the read-only scope, or left to a
// deny default by every rule — is refused with TOOL_NOT_ALLOWED.
func (p *Policy) Gate(t *tool.Tool) error {
	o := p.Offer(t)
	if o.Offered() {
		return nil
	}
	return tool.Errorf(tool.CodeToolNotAllowed, "tool %q is denied by policy: every call would be refused (%s)", t.Name, o.Rule).
		WithDetail("rule", o.Rule)
}

// Visible reports whether a model should be offered t at all: false for
// tools the gate always refuses.
func (p *Policy) Visible(t *tool.Tool) bool { return p.Offer(t).Offered() }

// strictness orders decisions from allow to deny.
func strictness(d Decision) int {
	switch d {
	case Allow:
		return 0
	case Ask:
		return 1
	}
	return 2
}
