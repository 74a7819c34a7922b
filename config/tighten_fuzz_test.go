package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/policy"
)

// FuzzTighten holds an untrusted project's file, whatever it holds, to
// tightening: what is kept of it sets nothing but deny and ask rules,
// [policy.tools] entries that deny or ask, protected paths, audit
// redaction, a default at least as strict as the operator's, a write
// scope at least as narrow, and an ask_fallback of deny.
func FuzzTighten(f *testing.F) {
	f.Add([]byte(everyDangerousKey), []byte(""))
	f.Add([]byte("[policy]\nask = [\"x\"]\n"), []byte("[policy]\ndefault = \"deny\"\n"))
	f.Add([]byte("policy = { tools = { a = \"ask\" } }\n"), []byte("[policy.tools]\na = \"deny\"\n"))
	f.Fuzz(func(t *testing.T, project, operator []byte) {
		p, err := Parse("quiver.toml", project)
		if err != nil {
			return
		}
		base, err := Parse("op.toml", operator)
		if err != nil {
			return
		}
		out, _, _ := tighten(base, p)
		rest := *out
		rest.Policy.Deny, rest.Policy.Ask, rest.Policy.Protected, rest.Policy.Tools = nil, nil, nil, nil
		rest.Policy.Default, rest.Workspace.WriteScope, rest.Serve.AskFallback, rest.Audit.Redact = Decision{}, WriteScope{}, Decision{}, nil
		if d := cmp.Diff(&Config{}, &rest, settings); d != "" {
			t.Fatalf("kept a key outside the allowlist:\n%s", d)
		}
		if out.Policy.Default.Decision != "" && decisionRank(out.Policy.Default.Decision) < decisionRank(base.Policy.Default.Decision) {
			t.Fatalf("default %q looser than the operator's %q", out.Policy.Default.Decision, base.Policy.Default.Decision)
		}
		if out.Workspace.WriteScope.WriteScope != "" && scopeRank(out.Workspace.WriteScope.WriteScope) > scopeRank(base.Workspace.WriteScope.WriteScope) {
			t.Fatalf("write scope %q broader than the operator's", out.Workspace.WriteScope.WriteScope)
		}
		if d := out.Serve.AskFallback.Decision; d != "" && d != policy.Deny {
			t.Fatalf("ask_fallback %q kept", d)
		}
		openDefault := base.Policy.Default.Decision != policy.Deny
		if len(out.Policy.Ask) > 0 && !openDefault {
			t.Fatal("ask rules kept under the operator's default deny")
		}
		for name, d := range out.Policy.Tools {
			was := base.Policy.Tools[name].Decision
			if d.Decision == policy.Allow || d.Decision == policy.Ask && (!openDefault || was == policy.Deny) {
				t.Fatalf("[policy.tools] %s = %q kept over the operator's %q", name, d.Decision, was)
			}
		}
	})
}
