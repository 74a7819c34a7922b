package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/quiverkit/quiver/tool"
)

// Suggest returns the allow rules that, added to p's allow list, let a call
// of t with these subjects and risk through without asking; or, when no
// allow rule can, none and why. An approval request offers them to the
// person asked and a refusal to the model, so a rule that does not pass the
// call is worse than none: the same refusal would come back after adding it
// (issue 33: `cat a | tee b` was offered exec_command(cat a) alone).
//
// An allow rule with a specifier must cover every subject of a call, so
// the rules are one per simple command of a command line (cat a | tee b:
// exec_command(cat a) and exec_command(tee b)), one per path and one per
// host (or one for the domain the hosts share); all of them are needed. A
// call with no subjects gets the bare tool rule. Every suggestion is then
// decided by p with the rules added, and is returned only if that decision
// is allow: where an ask rule, [policy.tools], a protected path or a word
// known only when the line runs stands in the way, the answer says which.
//
// A tool that runs a command template without a shell (a custom tool:
// [tool.Tool.ArgvCommands]) has words that are arguments, never shell
// syntax, and a word a rule would show as shell — spaces, quotes,
// ; & | $ ( ) or a glob character — is written "*", so that the rule
// reads as the template's words with a wildcard where such a value went:
// echo_it(echo --title *).
func (p *Policy) Suggest(t *tool.Tool, subjects []tool.Subject, risk tool.Risk) (rules []string, why string) {
	rules, why = candidates(t.Name, subjects, t.ArgvCommands)
	if len(rules) == 0 {
		return nil, why
	}
	with, err := p.withAllow(rules)
	if err != nil {
		return nil, fmt.Sprintf("no allow rule can name it (%v)", err)
	}
	if with.Decide(t, subjects, risk).Decision == Allow {
		return rules, ""
	}
	return nil, p.whyNoRule(t, subjects, risk)
}

// candidates are the allow rules that would cover every subject, before
// the policy is asked whether they pass the call.
func candidates(name string, subjects []tool.Subject, argv bool) ([]string, string) {
	if len(subjects) == 0 {
		return []string{name}, ""
	}
	var rules []string
	for _, s := range subjects {
		switch s.Kind {
		case tool.SubjectCommand:
			more, why := commandRules(name, s.Value, argv)
			if why != "" {
				return nil, why
			}
			for _, r := range more {
				rules = appendUnique(rules, r)
			}
		case tool.SubjectPath:
			rules = appendUnique(rules, name+"("+cleanSubjectPath(s.Value)+")")
		}
	}
	for _, r := range domainRules(name, subjects) {
		rules = appendUnique(rules, r)
	}
	if len(rules) == 0 {
		return nil, "the call names no command, path or host a rule could name; only the bare rule " + name + ", which allows every call of it, would pass it"
	}
	return rules, ""
}

// commandRules are the rules naming each simple command of line, or why
// there are none.
func commandRules(name, line string, argv bool) ([]string, string) {
	cmds, err := SimpleCommands(line)
	if err != nil {
		return nil, fmt.Sprintf("the command line does not parse (%v), and an allow rule names only the commands of a line that does", err)
	}
	var rules []string
	for _, c := range cmds {
		words := c.Words
		if argv {
			words = starred(words)
		}
		rule := name + "(" + strings.Join(words, " ") + ")"
		switch {
		case !c.Literal && argv:
			return nil, fmt.Sprintf("a value of this call holds $, a backtick or a glob character, so it is asked about whatever the rules say; the rule %s would pass the calls like it whose values are plain", rule)
		case !c.Literal:
			return nil, fmt.Sprintf("the command %q has a word known only when the line runs ($VAR, $(...), a backtick, a glob, or a program read from standard input), which no allow rule covers, so such a line is asked about whatever the rules say", c.String())
		}
		rules = appendUnique(rules, rule)
	}
	return rules, ""
}

// starred is words with "*" for each word that is not plain (see
// plainWord).
func starred(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w
		if !plainWord(w) {
			out[i] = "*"
		}
	}
	return out
}

// domainRules name the hosts of the URL subjects: the domain they share
// when it has two labels or more (html.duckduckgo.com and
// api.duckduckgo.com: duckduckgo.com), else each host. A rule names a host
// and its subdomains, never the bare tool, which would allow every host.
func domainRules(name string, subjects []tool.Subject) []string {
	var hosts []string
	for _, s := range subjects {
		if s.Kind == tool.SubjectURL {
			hosts = appendUnique(hosts, urlHost(s.Value))
		}
	}
	if len(hosts) == 0 {
		return nil
	}
	if common := commonDomain(hosts); common != "" {
		return []string{name + "(domain:" + common + ")"}
	}
	rules := make([]string, len(hosts))
	for i, h := range hosts {
		rules[i] = name + "(domain:" + h + ")"
	}
	return rules
}

// commonDomain is the domain every host lies in, when it has two labels or
// more (one host is its own); "" when they share less.
func commonDomain(hosts []string) string {
	common := strings.Split(hosts[0], ".")
	for _, h := range hosts[1:] {
		labels := strings.Split(h, ".")
		n := 0
		for n < len(common) && n < len(labels) && common[len(common)-1-n] == labels[len(labels)-1-n] {
			n++
		}
		common = common[len(common)-n:]
	}
	if len(hosts) > 1 && len(common) < 2 {
		return ""
	}
	return strings.Join(common, ".")
}

// withAllow is p with rules added to its allow list.
func (p *Policy) withAllow(rules []string) (*Policy, error) {
	q := *p
	q.allow = slices.Clip(p.allow)
	for _, s := range rules {
		r, err := ParseRule(s)
		if err != nil {
			return nil, err
		}
		q.allow = append(q.allow, r)
	}
	return &q, nil
}

// whyNoRule says what makes p ask about a call whatever its allow rules.
func (p *Policy) whyNoRule(t *tool.Tool, subjects []tool.Subject, risk tool.Risk) string {
	v := p.Decide(t, subjects, risk)
	switch {
	case v.Protected != "":
		return "writing the protected path " + v.Protected + " always asks, whatever the allow rules say"
	case strings.HasPrefix(v.Rule, "ask: "):
		return fmt.Sprintf("the rule %q asks about it, and an ask rule comes before every allow rule", strings.TrimPrefix(v.Rule, "ask: "))
	case strings.HasPrefix(v.Rule, "tools."):
		return fmt.Sprintf("%s asks about every call of the tool, before any allow rule", v.Rule)
	}
	return fmt.Sprintf("no allow rule passes it (%s)", v.Rule)
}

// plainWord reports whether w reads the same in a rule as in an argv: no
// character a shell or a rule's glob would give a meaning to.
func plainWord(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("-_./:=,@%+", r):
		default:
			return false
		}
	}
	return true
}
