package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// TestAbsoluteRulesMeanTheirRelativeForm: bound to a workspace, a path
// rule written as an absolute path inside it — plainly, with ./ and //,
// as a glob, through a link to the workspace, from ~ — decides every call
// as its relative form does, in every list (deny, ask, allow), and
// ReadDenied gives it in the workspace's spelling; one outside the
// workspace matches the outside path, also through a link.
func TestAbsoluteRulesMeanTheirRelativeForm(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	for _, d := range []string{dir, filepath.Join(base, "out")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"wslink": "ws", "outlink": "out"} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".env", filepath.Join(dir, "envlink")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", base)
	ws := openWorkspace(t, dir)
	real := ws.Dir() // the temporary directory may itself be reached through a link
	out := filepath.Join(filepath.Dir(real), "out")
	for _, c := range []struct {
		spec, relative string // the spelling tried, and what it must mean
	}{
		{dir + "/.env", ".env"},
		{real + "/.env", ".env"},
		{"/" + dir + "//./.env", ".env"},
		{dir + "/sub/../keys/**", "keys/**"},
		{dir + "/k*s/", "k*s"},
		{dir + "/**/*.pem", "**/*.pem"},
		{base + "/wslink/.env", ".env"},
		{base + "/wslink/./keys//**", "keys/**"},
		{base + "/wslink/envlink", "envlink"}, // a rule naming a link names the link
		{"~/ws/.env", ".env"},
		{"~/wslink/keys", "keys"},
		{dir, "."},
		{out + "/secret", out + "/secret"},
		{base + "/outlink/secret", out + "/secret"},
		{"~/out/s*t", out + "/s*t"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			spelled := bindTo(t, c.spec, ws)
			plain := bindTo(t, c.relative, ws)
			if got := spelled.ReadDenied(); !cmp.Equal(got, []string{c.relative}) {
				t.Errorf("ReadDenied = %q, want %q", got, c.relative)
			}
			for _, p := range []string{".env", "./.env", "keys", "keys/a/b.pem", "sub/x.pem", "sub/.env", "notes.txt", "envlink", ".",
				out + "/secret", out + "/public", out + "//secret"} {
				for _, tl := range []*tool.Tool{readFile, writeFile, editTool} {
					want := plain.Decide(tl, file(p), tool.RiskHigh)
					if got := spelled.Decide(tl, file(p), tool.RiskHigh); got.Decision != want.Decision {
						t.Errorf("%s %s: %s (%s), as %s is %s", tl.Name, p, got.Decision, got.Rule, c.relative, want.Decision)
					}
				}
				_, want := plain.DeniesRead(p)
				if _, got := spelled.DeniesRead(p); got != want {
					t.Errorf("DeniesRead(%s) = %v, as %s says %v", p, got, c.relative, want)
				}
			}
		})
	}
}

// bindTo is a policy that denies read_file, asks write_file and allows
// edit on spec, and denies every other call, bound to ws as the toolkit
// binds it.
func bindTo(t *testing.T, spec string, ws Resolver) *Policy {
	t.Helper()
	p, err := New(Config{Default: Deny, Deny: []string{"read_file(" + spec + ")"}, Ask: []string{"write_file(" + spec + ")"},
		Allow: []string{"edit(" + spec + ")", "write_file(**)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	return p.InWorkspace(ws)
}

// FuzzAbsoluteRule: for any relative specifier g and any relative path p,
// a read deny written as the workspace's absolute path joined with g
// denies p exactly when g itself does.
func FuzzAbsoluteRule(f *testing.F) {
	for _, s := range [][2]string{{".env", ".env"}, {"keys/**", "keys/a"}, {"*.pem", "a.pem"}, {"{a,b/c}", "b/c"},
		{"./x//y", "x/y"}, {"a/../b", "b"}, {"src/", "src/x"}, {"[a-", "a"}, {`a\*`, "a*"}, {"**", "x"}} {
		f.Add(s[0], s[1])
	}
	ws, err := workspace.Open(f.TempDir(), workspace.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ws.Close() })
	f.Fuzz(func(t *testing.T, g, p string) {
		r, err := ParseRule("read_file(" + g + ")")
		if err != nil {
			return
		}
		g = r.Spec // as parsed: spaces around it trimmed
		c := cleanSubjectPath(g)
		if filepath.IsAbs(g) || strings.HasPrefix(c, "~") ||
			c == "." || c == ".." || strings.HasPrefix(c, "../") || strings.ContainsAny(g, "()\x00") || filepath.IsAbs(p) {
			return
		}
		rel, err := New(Config{Deny: []string{"read_file(" + g + ")"}}, sandbox.WorkspaceWrite)
		if err != nil {
			return
		}
		abs, err := New(Config{Deny: []string{"read_file(" + ws.Dir() + "/" + g + ")"}}, sandbox.WorkspaceWrite)
		if err != nil {
			t.Fatalf("the absolute form of %q does not parse: %v", g, err)
		}
		_, want := rel.InWorkspace(ws).DeniesRead(p)
		if _, got := abs.InWorkspace(ws).DeniesRead(p); got != want {
			t.Errorf("DeniesRead(%q): %v under %s/%s, %v under %s", p, got, ws.Dir(), g, want, g)
		}
	})
}
