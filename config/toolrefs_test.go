package config

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// names is a catalogue over a fixed list, with MCP servers' prefixes.
type names struct {
	list     []string
	prefixes []string
}

func (n names) Knows(name string) bool {
	if slices.Contains(n.list, name) {
		return true
	}
	return slices.ContainsFunc(n.prefixes, func(p string) bool { return strings.HasPrefix(name, p) })
}
func (n names) Names() []string { return n.list }
func (n names) MayMatch(pattern string) bool {
	lit := pattern[:strings.IndexAny(pattern, "*?[{\\")]
	return slices.ContainsFunc(n.prefixes, func(p string) bool { return strings.HasPrefix(lit, p) || strings.HasPrefix(p, lit) })
}

// A rule naming no tool is an error at its file, line and column, with
// the name meant when one is near; names of a server that is not running
// and patterns that match something pass.
func TestCheckToolRefs(t *testing.T) {
	doc := `[policy]
allow = ["read_file", "github__*", "github__create_issue"]
deny = ["exec_comand(rm *)", "*_file(.env)", "nothing_*"]
ask = [
  "wirte_file",
]

[policy.tools]
web_fetc = "deny"
exec_command = "ask"
`
	c, err := Parse("quiver.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	cat := names{list: []string{"read_file", "write_file", "exec_command", "web_fetch"}, prefixes: []string{"github__"}}
	var got []string
	for _, err := range CheckToolRefs(c, cat) {
		var u *UnknownToolError
		if !errors.As(err, &u) {
			t.Fatalf("%v: not an UnknownToolError", err)
		}
		got = append(got, err.Error())
	}
	want := []string{
		`quiver.toml:3:9: policy.deny names no tool: "exec_comand" (did you mean "exec_command"?)`,
		`quiver.toml:3:46: policy.deny names no tool: "nothing_*"`,
		`quiver.toml:5:3: policy.ask names no tool: "wirte_file" (did you mean "write_file"?)`,
		`quiver.toml:9:1: policy.tools.web_fetc names no tool: "web_fetc" (did you mean "web_fetch"?)`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// The user's file governs every workspace: a name there that is near no
// tool of this one is taken for another project's tool (listed, not an
// error); a near one is a typo. The project's file has no such leeway.
func TestUserToolRefsMayNameOtherProjectsTools(t *testing.T) {
	e := newEnv(t, map[string]string{"quiver.toml": "[policy]\ndeny = [\"deploy_staging\"]\n"})
	writeFiles(t, e.userDir, map[string]string{UserFileName: "[policy]\ndeny = [\"deploy_prod\", \"raed_file\"]\n"})
	c := e.mustLoad()
	cat := names{list: []string{"read_file", "write_file"}}
	var got []string
	for _, err := range CheckToolRefs(c, cat) {
		got = append(got, err.Error())
	}
	user := filepath.Join(e.userDir, UserFileName)
	want := []string{
		user + `:2:24: policy.deny names no tool: "raed_file" (did you mean "read_file"?)`,
		filepath.Join(e.project, "quiver.toml") + `:2:9: policy.deny names no tool: "deploy_staging"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("CheckToolRefs (-want +got):\n%s", d)
	}
	var elsewhere []string
	for _, r := range ElsewhereToolRefs(c, cat) {
		elsewhere = append(elsewhere, r.Tool)
	}
	if d := cmp.Diff([]string{"deploy_prod"}, elsewhere); d != "" {
		t.Errorf("ElsewhereToolRefs (-want +got):\n%s", d)
	}
}
