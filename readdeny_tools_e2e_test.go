package quiver_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/cli"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// readDenyWorkspace holds a secret at .env and in the directory keys, the
// names an attacker reaches them by (a symbolic link to each, a hard link
// made before the deny, a directory reached through a link), and files
// that are not secret.
func readDenyWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, ".env"), "SECRET_TOKEN=s3cr3t-value\n", 0o600)
	mustWrite(t, filepath.Join(ws, "keys/prod-customer.pem"), "s3cr3t-key\n", 0o600)
	mustWrite(t, filepath.Join(ws, "notes.txt"), "public SECRET_TOKEN docs\n", 0o644)
	mustWrite(t, filepath.Join(ws, "sub/.env"), "not denied: sub-value\n", 0o644)
	for link, target := range map[string]string{"envlink": ".env", "sub/up": "..", "kl": "keys"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(ws, ".env"), filepath.Join(ws, "sub/hard")); err != nil {
		t.Fatal(err)
	}
	return ws
}

// readDenySpellings are the ways an operator may write deny =
// ["read_file(.env)", "read_file(keys/**)"] for the workspace ws: each
// must deny what the relative form denies, to every reader. "~" is the
// home directory (HOME is set to ws's parent for that spelling). The CLI
// provider's rg and fd are filtered by the same question as the builtin
// tools, and slower to start: they are tried with the spellings marked
// cli.
var readDenySpellings = []struct {
	name  string
	cli   bool
	rules func(t *testing.T, ws string) []string
}{
	{"relative", true, func(*testing.T, string) []string { return []string{"read_file(.env)", "read_file(keys/**)"} }},
	{"relative with ./ and //", false, func(*testing.T, string) []string { return []string{"read_file(./.env)", "read_file(.//keys//)"} }},
	{"absolute", false, func(_ *testing.T, ws string) []string {
		return []string{"read_file(" + ws + "/.env)", "read_file(" + ws + "/keys/**)"}
	}},
	{"absolute with ./ and //", true, func(_ *testing.T, ws string) []string {
		return []string{"read_file(/" + ws + "//./.env)", "read_file(" + ws + "/sub/..//keys/)"}
	}},
	{"absolute globs", false, func(_ *testing.T, ws string) []string {
		return []string{"read_file(" + ws + "/.e[n]v)", "read_file(" + ws + "/k*s/**)"}
	}},
	{"absolute through a link to the workspace", true, func(t *testing.T, ws string) []string {
		link := filepath.Join(t.TempDir(), "wslink")
		if err := os.Symlink(ws, link); err != nil {
			t.Fatal(err)
		}
		return []string{"read_file(" + link + "/.env)", "read_file(" + link + "/keys/**)"}
	}},
	{"from ~", false, func(t *testing.T, ws string) []string {
		t.Setenv("HOME", filepath.Dir(ws))
		return []string{"read_file(~/" + filepath.Base(ws) + "/.env)", "read_file(~/" + filepath.Base(ws) + "/keys)"}
	}},
}

// TestReadDenyMeansEveryTool: with deny = ["read_file(.env)",
// "read_file(keys/**)"], written in any of readDenySpellings, no tool that
// reads files reveals the secret, by any spelling of its path, through a
// link of either kind, through the CLI provider's rg and fd, or through an
// output stored before the deny. A denied path asked for by name is
// TOOL_NOT_ALLOWED; in listings and searches denied paths are left out, as
// if absent.
func TestReadDenyMeansEveryTool(t *testing.T) {
	for _, withCLI := range []bool{false, true} {
		name := "builtin"
		if withCLI {
			name = "cli provider (rg, fd)"
		}
		for _, sp := range readDenySpellings {
			if withCLI && !sp.cli {
				continue
			}
			t.Run(name+"/"+sp.name, func(t *testing.T) {
				ws := readDenyWorkspace(t)
				testReadDenyTools(t, ws, withCLI, sp.rules(t, ws))
			})
		}
	}
}

func testReadDenyTools(t *testing.T, ws string, withCLI bool, deny []string) {
	tk := readDenyToolkit(t, ws, sandbox.WorkspaceWrite, withCLI, nil, deny...)
	abs := filepath.Join(ws, ".env")
	refused := []struct{ tool, args string }{
		{"read_file", `{"path":".env"}`},
		{"read_file", `{"path":"./.env"}`},
		{"read_file", `{"path":"sub/../.env"}`},
		{"read_file", `{"path":".//.env"}`},
		{"read_file", `{"path":` + quote(abs) + `}`},
		{"read_file", `{"path":"envlink"}`},
		{"read_file", `{"path":"sub/up/.env"}`},
		{"read_file", `{"path":"sub/hard"}`},
		{"read_file", `{"path":"keys/prod-customer.pem"}`},
		{"read_file", `{"path":"kl/prod-customer.pem"}`},
		{"grep_search", `{"pattern":"s3cr3t","path":".env"}`},
		{"grep_search", `{"pattern":"s3cr3t","path":"envlink"}`},
		{"grep_search", `{"pattern":"s3cr3t","path":"keys"}`},
		{"grep_search", `{"pattern":"s3cr3t","path":"kl"}`},
		{"list_files", `{"path":"keys"}`},
		{"list_files", `{"path":"kl"}`},
		{"tree", `{"path":"keys"}`},
		{"list_dirs", `{"path":"keys"}`},
		{"glob_search", `{"pattern":"*","base_dir":"keys"}`},
		{"edit", `{"path":".env","old_string":"SECRET","new_string":"X"}`},
		{"edit", `{"path":"sub/hard","old_string":"SECRET","new_string":"X"}`},
		{"multi_edit", `{"path":".env","edits":[{"old_string":"SECRET","new_string":"X"}]}`},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** Update File: .env\n@@\n-SECRET_TOKEN=s3cr3t-value\n+x\n*** End Patch"}`},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** Update File: .env\n*** Move to: moved\n@@\n-SECRET_TOKEN=s3cr3t-value\n+SECRET_TOKEN=s3cr3t-value\n*** End Patch"}`},
		// Overwriting needs the old content's hash, which is an oracle.
		{"write_file", `{"path":".env","content":"x"}`},
	}
	for _, c := range refused {
		res, err := tk.Invoke(context.Background(), c.tool, json.RawMessage(c.args))
		var te *tool.Error
		if !errors.As(err, &te) || te.Code != tool.CodeToolNotAllowed {
			t.Errorf("%s %s: %v, want TOOL_NOT_ALLOWED", c.tool, c.args, err)
		}
		if strings.Contains(res.Content.String(), "s3cr3t") {
			t.Errorf("%s %s printed the secret:\n%s", c.tool, c.args, res.Content)
		}
	}
	if b, _ := os.ReadFile(abs); string(b) != "SECRET_TOKEN=s3cr3t-value\n" {
		t.Errorf(".env changed: %q", b)
	}
	searches := []struct {
		tool, args string
		want       string // what the search must still find
	}{
		{"grep_search", `{"pattern":"SECRET_TOKEN"}`, "notes.txt"},
		{"grep_search", `{"pattern":"s3cr3t|SECRET|value","path":"sub/.env"}`, "sub-value"},
		{"grep_search", `{"pattern":"s3cr3t|SECRET|value","file_pattern":".*"}`, "sub/.env"},
		{"grep_search", `{"pattern":"s3cr3t","output_mode":"files"}`, ""},
		{"grep_search", `{"pattern":"s3cr3t","output_mode":"count"}`, ""},
		{"grep_search", `{"pattern":"s3cr3t","path":"sub"}`, ""},
		{"search_code", `{"query":"SECRET_TOKEN"}`, "notes.txt"},
		{"search_code", `{"query":"s3cr3t"}`, ""},
		{"glob_search", `{"pattern":"**/*.pem"}`, ""},
		{"glob_search", `{"pattern":"**/.env"}`, "sub/.env"},
		{"glob_search", `{"pattern":".env"}`, ""},
		{"tree", `{"include_hidden":true,"depth":5}`, "notes.txt"},
		{"list_dirs", `{"include_hidden":true,"depth":3}`, "sub"},
		{"list_files", `{"include_hidden":true}`, "notes.txt"},
	}
	for _, c := range searches {
		res, err := tk.Invoke(context.Background(), c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
			continue
		}
		view := res.Content.String()
		for _, leak := range []string{"s3cr3t", "prod-customer", `".env"`, `"keys"`, "keys/"} {
			if strings.Contains(view, leak) {
				t.Errorf("%s %s shows %q:\n%s", c.tool, c.args, leak, view)
			}
		}
		if !strings.Contains(view, c.want) {
			t.Errorf("%s %s lost %q:\n%s", c.tool, c.args, c.want, view)
		}
	}
}

// TestReadDenyHoldsForStoredOutputs: an output stored whole before a read
// deny (a dir store outlives its toolkit) is refused to tool_output_cache
// and tool_output_cache_grep once the path it came from is denied, in any
// of readDenySpellings.
func TestReadDenyHoldsForStoredOutputs(t *testing.T) {
	for _, sp := range readDenySpellings {
		t.Run(sp.name, func(t *testing.T) {
			ws := t.TempDir()
			testReadDenyStoredOutputs(t, ws, sp.rules(t, ws))
		})
	}
}

func testReadDenyStoredOutputs(t *testing.T, ws string, deny []string) {
	mustWrite(t, filepath.Join(ws, ".env"), strings.Repeat("SECRET_TOKEN=s3cr3t-value\n", 4000), 0o600)
	store, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: filepath.Join(t.TempDir(), "outputs")})
	if err != nil {
		t.Fatal(err)
	}
	before := readDenyToolkit(t, ws, sandbox.WorkspaceWrite, false, store, "read_file(other)")
	res, err := before.Invoke(context.Background(), "read_file", map[string]any{"path": "./.env", "limit": 4000})
	if err != nil || res.Content.OutputRef == "" {
		t.Fatalf("read_file before the deny: ref %q, %v", res.Content.OutputRef, err)
	}
	after := readDenyToolkit(t, ws, sandbox.WorkspaceWrite, false, store, deny...)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"tool_output_cache", map[string]any{"ref_id": res.Content.OutputRef}},
		{"tool_output_cache_grep", map[string]any{"ref_id": res.Content.OutputRef, "pattern": "s3cr3t"}},
	} {
		out, err := after.Invoke(context.Background(), c.tool, c.args)
		var te *tool.Error
		if !errors.As(err, &te) || te.Code != tool.CodeToolNotAllowed || strings.Contains(out.Content.String(), "s3cr3t") {
			t.Errorf("%s after the deny: %v\n%.200s", c.tool, err, out.Content)
		}
	}
	if _, err := before.Invoke(context.Background(), "tool_output_cache", map[string]any{"ref_id": res.Content.OutputRef}); err != nil {
		t.Errorf("tool_output_cache where nothing denies .env: %v", err)
	}
}

// TestReadDenyOutsideTheWorkspace: under the unrestricted scope, where the
// file tools serve absolute paths outside the workspace (searches stay
// inside it), an absolute deny rule naming an outside file refuses it to
// every reader, named by its path or through a link to its directory, and
// leaves it out of listings, whether the rule is written as the path,
// through such a link, as a glob or from ~; the file beside it reads as
// ever.
func TestReadDenyOutsideTheWorkspace(t *testing.T) {
	ws := readDenyWorkspace(t)
	base := t.TempDir()
	outside, link := filepath.Join(base, "out"), filepath.Join(base, "outlink")
	mustWrite(t, filepath.Join(outside, "secret.txt"), "s3cr3t-outside\n", 0o600)
	mustWrite(t, filepath.Join(outside, "public.txt"), "public-outside\n", 0o644)
	if err := os.Symlink("out", link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", base)
	for _, c := range []struct{ name, rule string }{
		{"as its path", "read_file(" + outside + "/secret.txt)"},
		{"through a link", "read_file(" + link + "/secret.txt)"},
		{"as a glob, with ./ and //", "read_file(" + outside + "//./s*t.txt)"},
		{"from ~", "read_file(~/out/secret.txt)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := readDenyToolkit(t, ws, sandbox.Unrestricted, false, nil, c.rule)
			for _, p := range []string{filepath.Join(outside, "secret.txt"), filepath.Join(link, "secret.txt"), outside + "//./secret.txt"} {
				res, err := tk.Invoke(context.Background(), "read_file", map[string]any{"path": p})
				if tool.CodeOf(err) != tool.CodeToolNotAllowed || strings.Contains(res.Content.String(), "s3cr3t") {
					t.Errorf("read_file %s: %v, want TOOL_NOT_ALLOWED\n%s", p, err, res.Content)
				}
			}
			for _, dir := range []string{outside, link} {
				for _, call := range []struct{ tool, args string }{
					{"list_files", `{"path":` + quote(dir) + `}`},
					{"read_file", `{"path":` + quote(filepath.Join(dir, "public.txt")) + `}`},
				} {
					res, err := tk.Invoke(context.Background(), call.tool, json.RawMessage(call.args))
					view := res.Content.String()
					if err != nil || strings.Contains(view, "secret") || !strings.Contains(view, "public") {
						t.Errorf("%s %s: %v\n%s", call.tool, call.args, err, view)
					}
				}
			}
		})
	}
}

// readDenyToolkit is a toolkit of scope that allows everything but reading
// what deny names (by default .env and keys), approving every ask.
func readDenyToolkit(t *testing.T, ws string, scope sandbox.WriteScope, withCLI bool, store outputcache.Store, deny ...string) *quiver.Toolkit {
	t.Helper()
	if deny == nil {
		deny = []string{"read_file(.env)", "read_file(keys/**)"}
	}
	pol, err := policy.New(policy.Config{Default: policy.Allow, Deny: deny}, scope)
	if err != nil {
		t.Fatal(err)
	}
	opts := []quiver.Option{quiver.WithRoot(ws), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto)}
	if withCLI {
		opts = append(opts, quiver.WithProvider(cli.New(cli.Options{})))
	}
	if store != nil {
		opts = append(opts, quiver.WithOutputCache(store, outputcache.Budget{}))
	}
	tk, err := quiver.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
