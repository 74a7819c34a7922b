package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/search"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/providertest"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
	"github.com/quiverkit/quiver/tools"
	"github.com/quiverkit/quiver/workspace"
)

// needPrograms returns the real rg and fd; without them the comparison
// cannot run. CI installs both (see the README), so there a missing program
// is a failure, not a skip.
func needPrograms(t *testing.T) {
	t.Helper()
	for _, prog := range []string{"rg", "fdfind|fd"} {
		found := false
		for _, name := range strings.Split(prog, "|") {
			if _, err := exec.LookPath(name); err == nil {
				found = true
			}
		}
		if !found {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed; the README's test set-up installs ripgrep and fd-find", prog)
			}
			t.Skipf("%s is not installed", prog)
		}
	}
}

// parityTree has everything the two backends must agree on: ignore files
// at several depths (and .git/info/exclude), hidden files and directories,
// binary files (a NUL at the start, and one after ripgrep's first read
// block), symlinks to files, directories and outside, names and contents
// that are not UTF-8, CRLF lines, a line longer than the display limit,
// and a pattern-like file name.
func parityTree(t *testing.T) string {
	dir := t.TempDir()
	big := strings.Repeat("filler line without the word\n", 3000) // > 64 KiB
	files := map[string]string{
		".gitignore":               "*.log\nbuild/\n!keep.log\n/vendor-*/\n",
		".git/info/exclude":        "excluded.go\n",
		".git/HEAD":                "func New in git\n",
		".quiverignore":            "private/\n",
		".env":                     "TOKEN=func New hidden\n",
		".github/workflows/ci.yml": "run: func New ci\n",
		"main.go":                  "package main\n\nfunc New() *T {\n\treturn &T{}\n}\n\nfunc  NewReader(r io.Reader) {}\n// Context.Context and CONTEXT.context\n",
		"excluded.go":              "func New excluded\n",
		"debug.log":                "func New log\n",
		"keep.log":                 "func New kept log\n",
		"build/gen.go":             "func New generated\n",
		"vendor-x/v.go":            "func New vendored\n",
		"private/p.go":             "func New private\n",
		"lib/util.go":              "package lib\n\nimport \"context\"\n\nfunc NewThing(ctx context.Context) {}\nfunc newHelper() {}\n" + big + "func New at the end\n",
		"lib/util_test.go":         "package lib\n\nfunc TestNew(t *testing.T) { NewThing(nil) }\n",
		"lib/.gitignore":           "*.tmp\n!important.tmp\n",
		"lib/x.tmp":                "func New tmp\n",
		"lib/important.tmp":        "func New important\n",
		"lib/deep/a/b/c.go":        "package c\nfunc New() {}\n-1 is a flag-like line\n",
		"lib/deep/.ignore":         "a/b/skip.go\n",
		"lib/deep/a/b/skip.go":     "func New skipped\n",
		"bin/start.bin":            "\x00\x01func New binary\n",
		"bin/late.dat":             "func New early\n" + big + "func New late\n\x00\nfunc New after\n",
		"docs/notes.md":            "Func New in docs\r\nanother func New line\r\n",
		"docs/long.txt":            strings.Repeat("é", 700) + " func New\n",
		"docs/caf\xe9.txt":         "func New \xff\xfe in latin-1\n",
		"docs/[brackets] {x}.go":   "func New odd name\n",
		"docs/-dash.go":            "func New dash\n",
		"links/to-main.go":         "->../main.go",
		"links/to-lib":             "->../lib",
		"links/outside":            "->/etc",
		"links/dangling.go":        "->nowhere.go",
		"empty.txt":                "",
		"nonl.go":                  "func New without newline",
		"sub/.quiverignore":        "*.secret\n",
		"sub/a.secret":             "func New secret\n",
		"sub/b.go":                 "func New sub\n",
		"sub/.hidden/h.go":         "func New hidden dir\n",
		"sub/.hidden/.gitignore":   "",
		"manyctx.go":               "a\nfunc New 1\nb\nc\nfunc New 2\nfunc New 3\nd\ne\nf\ng\nfunc New 4\nh\n",
		"caseonly.txt":             "CONTEXT.CONTEXT\ncontext.context\nConText.ConText\n",
		"kelvin.txt":               "\u212aelvin\nkelvin\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Distinct modification times, so glob's newest-first order is decided
	// by times, not by ties.
	i := 0
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			i++
			ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i*37%101) * time.Minute)
			os.Chtimes(p, ts, ts)
		}
		return nil
	})
	return dir
}

// call runs tl in ws as the pipeline would (tooltest validates the
// arguments against the schema first).
func call(t *testing.T, ws *workspace.Workspace, tl *tool.Tool, args string) (tool.Result, error) {
	t.Helper()
	return callB(t, ws, tl, args)
}

func callB(t testing.TB, ws *workspace.Workspace, tl *tool.Tool, args string) (tool.Result, error) {
	t.Helper()
	shared := tool.NewScope(nil, nil)
	shared.Provide(workspace.Key.ID, ws)
	return tooltest.Call(context.Background(), tl, shared, args)
}

func toolByName(t *testing.T, list []*tool.Tool, name string) *tool.Tool {
	t.Helper()
	for _, tl := range list {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// TestBackendsAgree runs every query through the built-in tool and the
// rg- or fd-backed one over the same tree and requires the same typed
// output and the same text for the model.
func TestBackendsAgree(t *testing.T) {
	needPrograms(t)
	dir := parityTree(t)
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	p := New(Options{})
	offered, err := p.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	builtin := map[string]*tool.Tool{
		"grep_search": tools.NewGrepSearch(tools.BuiltinGrep),
		"search_code": tools.NewSearchCode(tools.BuiltinGrep),
		"glob_search": tools.NewGlobSearch(tools.BuiltinGlob),
	}
	queries := []struct{ tool, args string }{
		{"grep_search", `{"pattern":"func New","max_results":1000}`},
		{"grep_search", `{"pattern":"func New","fixed_strings":true,"max_results":1000}`},
		{"grep_search", `{"pattern":"func\\s+New\\w*\\(","max_results":1000}`},
		{"grep_search", `{"pattern":"context.context","case_insensitive":true,"fixed_strings":true}`},
		{"grep_search", `{"pattern":"kelvin","case_insensitive":true}`},
		{"grep_search", `{"pattern":"func New","output_mode":"files","max_results":1000}`},
		{"grep_search", `{"pattern":"func New","output_mode":"count","max_results":1000}`},
		{"grep_search", `{"pattern":"func New","max_results":3}`},
		{"grep_search", `{"pattern":"func New","output_mode":"files","max_results":2}`},
		{"grep_search", `{"pattern":"func New","context_lines":2,"max_results":1000}`},
		{"grep_search", `{"pattern":"func New","context_lines":1,"max_results":3}`},
		{"grep_search", `{"pattern":"func New","path":"lib"}`},
		{"grep_search", `{"pattern":"func New","path":"lib/deep/a"}`},
		{"grep_search", `{"pattern":"func New","path":"sub"}`},
		{"grep_search", `{"pattern":"func New","path":"build"}`},
		{"grep_search", `{"pattern":"func New","path":"links/to-lib"}`},
		{"grep_search", `{"pattern":"func New","path":"bin/late.dat"}`},
		{"grep_search", `{"pattern":"func New","file_pattern":"*.go"}`},
		{"grep_search", `{"pattern":"func New","file_pattern":"lib/**/*.go"}`},
		{"grep_search", `{"pattern":"func New","file_pattern":"*.{md,txt}"}`},
		{"grep_search", `{"pattern":"func New","file_pattern":"[a-m]*.go"}`},
		{"grep_search", `{"pattern":"func New","file_pattern":".env*"}`},
		{"grep_search", `{"pattern":"func New","file_pattern":".github/**"}`},
		{"grep_search", `{"pattern":"-1","fixed_strings":true}`},
		{"grep_search", `{"pattern":"^package \\w+$"}`},
		{"grep_search", `{"pattern":"New$"}`},
		{"grep_search", `{"pattern":"[A-Z]{4,}"}`},
		{"grep_search", `{"pattern":"latin"}`},
		{"grep_search", `{"pattern":"é{3}"}`},
		{"grep_search", `{"pattern":"nothing matches this"}`},
		{"search_code", `{"query":"func new"}`},
		{"search_code", `{"query":"Func New"}`},
		{"search_code", `{"query":"func New","filePattern":"*.go","limit":4}`},
		{"glob_search", `{"pattern":"**/*.go","max_results":1000}`},
		{"glob_search", `{"pattern":"**/*.go","max_results":5}`},
		{"glob_search", `{"pattern":"*.go"}`},
		{"glob_search", `{"pattern":"lib/**/*.go"}`},
		{"glob_search", `{"pattern":"**/*_test.go"}`},
		{"glob_search", `{"pattern":"**/*"}`},
		{"glob_search", `{"pattern":"**/.env"}`},
		{"glob_search", `{"pattern":".github/**/*.yml"}`},
		{"glob_search", `{"pattern":"**/*.{md,txt}"}`},
		{"glob_search", `{"pattern":"docs/\\[brackets\\]*"}`},
		{"glob_search", `{"pattern":"**","base_dir":"lib"}`},
		{"glob_search", `{"pattern":"links/*"}`},
		{"glob_search", `{"pattern":"missing/**/*.go"}`},
		{"glob_search", `{"pattern":"*.go","base_dir":"lib"}`},
		{"glob_search", `{"pattern":"./*.go"}`},
		{"glob_search", `{"pattern":"util*"}`},
		{"glob_search", `{"pattern":"*.{tmp,log}"}`},
		{"glob_search", `{"pattern":".env"}`},
		{"glob_search", `{"pattern":"*"}`},
	}
	for _, q := range queries {
		t.Run(q.tool+" "+q.args, func(t *testing.T) {
			want, err := call(t, ws, builtin[q.tool], q.args)
			if err != nil {
				t.Fatalf("builtin: %v", err)
			}
			got, err := call(t, ws, toolByName(t, offered, q.tool), q.args)
			if err != nil {
				t.Fatalf("cli: %v", err)
			}
			if diff := cmp.Diff(want.Output, got.Output); diff != "" {
				t.Errorf("typed output (-builtin +cli):\n%s", diff)
			}
			if want.String() != got.String() {
				t.Errorf("model view differs:\nbuiltin:\n%s\ncli:\n%s", want, got)
			}
			if t.Failed() || testing.Verbose() {
				t.Logf("builtin:\n%s", want)
			}
		})
	}
}

// TestBackendsAgreeOnGoSource compares the two backends on the benchmark
// queries over the Go distribution's own source.
func TestBackendsAgreeOnGoSource(t *testing.T) {
	needPrograms(t)
	if testing.Short() {
		t.Skip("searches GOROOT/src; run without -short")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(filepath.Join(strings.TrimSpace(string(goroot)), "src"), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	offered, _ := New(Options{}).Tools(context.Background())
	for _, q := range []struct{ tool, args string }{
		{"grep_search", `{"pattern":"func New","fixed_strings":true,"max_results":10000}`},
		{"grep_search", `{"pattern":"func\\s+New\\w*\\(","max_results":10000}`},
		{"grep_search", `{"pattern":"context.context","fixed_strings":true,"case_insensitive":true,"max_results":10000}`},
		{"grep_search", `{"pattern":"func New","fixed_strings":true,"output_mode":"files","max_results":10000}`},
		{"glob_search", `{"pattern":"**/*_test.go","max_results":10000}`},
	} {
		builtin := map[string]*tool.Tool{"grep_search": tools.NewGrepSearch(tools.BuiltinGrep), "glob_search": tools.NewGlobSearch(tools.BuiltinGlob)}[q.tool]
		want, err := call(t, ws, builtin, q.args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := call(t, ws, toolByName(t, offered, q.tool), q.args)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Output, got.Output); diff != "" {
			t.Errorf("%s %s (-builtin +cli):\n%s", q.tool, q.args, diff)
		}
	}
}

// fakeLook finds only the programs named.
func fakeLook(found ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		for _, f := range found {
			if f == name {
				return "/usr/bin/" + name, nil
			}
		}
		return "", exec.ErrNotFound
	}
}

// TestDetectionAsksOncePerProgram: New looks nothing up; the first listing
// looks each program up once, though two tools want rg and a missing fd is
// asked for before fdfind, and a wrapped tool's program is asked for once
// too; later listings and Backends ask nothing more.
func TestDetectionAsksOncePerProgram(t *testing.T) {
	asked := map[string]int{}
	look := fakeLook("rg", "fdfind", "jq")
	p := New(Options{Aliases: map[string]string{"query_json": "jq"}, LookPath: func(name string) (string, error) {
		asked[name]++
		return look(name)
	}})
	if len(asked) != 0 {
		t.Errorf("New looked up %v; want nothing before the first listing", asked)
	}
	for range 2 {
		if _, err := p.Tools(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]int{"rg": 1, "fd": 1, "fdfind": 1, "jq": 1}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("lookups (-want +got):\n%s", diff)
	}
	var offered []string
	for _, b := range p.Backends() {
		if b.Path != "" {
			offered = append(offered, b.Tool+"="+b.Path)
		}
	}
	wantOffered := []string{"glob_search=/usr/bin/fdfind", "grep_search=/usr/bin/rg", "query_json=/usr/bin/jq", "search_code=/usr/bin/rg"}
	if diff := cmp.Diff(wantOffered, offered); diff != "" {
		t.Errorf("backends (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("lookups after Backends (-want +got):\n%s", diff)
	}
}

func TestDetection(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		offered  []string
		backends map[string]string // tool -> path or note fragment
	}{
		{
			name:     "defaults with both programs",
			opts:     Options{LookPath: fakeLook("rg", "fd")},
			offered:  []string{"glob_search", "grep_search", "search_code"},
			backends: map[string]string{"grep_search": "/usr/bin/rg", "glob_search": "/usr/bin/fd"},
		},
		{
			name:     "fd is found as fdfind",
			opts:     Options{LookPath: fakeLook("fdfind")},
			offered:  []string{"glob_search"},
			backends: map[string]string{"glob_search": "/usr/bin/fdfind", "grep_search": "rg is not installed"},
		},
		{
			name:     "an alias names the program",
			opts:     Options{Aliases: map[string]string{"grep_search": "/opt/rg"}, LookPath: fakeLook("/opt/rg")},
			offered:  []string{"grep_search", "search_code"}[:1],
			backends: map[string]string{"grep_search": "/usr/bin//opt/rg"},
		},
		{
			name:     "the spec's grep and find are served by the builtin engine, with the reason",
			opts:     Options{Aliases: map[string]string{"grep_search": "grep", "glob_search": "find"}, LookPath: fakeLook("grep", "find", "rg")},
			offered:  []string{"search_code"},
			backends: map[string]string{"grep_search": "served by the builtin engine: grep cannot be made to search exactly", "glob_search": "served by the builtin engine: find cannot"},
		},
		{
			name:     "builtin leaves a tool to the builtin provider",
			opts:     Options{Aliases: map[string]string{"glob_search": "builtin"}, LookPath: fakeLook("rg", "fd")},
			offered:  []string{"grep_search", "search_code"},
			backends: map[string]string{"glob_search": "left to the builtin provider"},
		},
		{
			name:     "read_file = bat is deliberately unsupported",
			opts:     Options{Aliases: map[string]string{"read_file": "bat"}, LookPath: fakeLook("bat")},
			backends: map[string]string{"read_file": "deliberately unsupported: syntax highlighting"},
		},
		{
			name:     "an alias for another built-in this provider does not serve",
			opts:     Options{Aliases: map[string]string{"run_command": "bash"}, LookPath: fakeLook("bash")},
			backends: map[string]string{"run_command": "serves only"},
		},
		{
			name:     "an alias that is not a built-in defines a tool running its program",
			opts:     Options{Aliases: map[string]string{"my_tool": "external-cli-command"}, LookPath: fakeLook("external-cli-command")},
			offered:  []string{"my_tool"},
			backends: map[string]string{"my_tool": "/usr/bin/external-cli-command"},
		},
		{
			name:     "a wrapped program that is missing is still a tool, and says so",
			opts:     Options{Aliases: map[string]string{"my_tool": "external-cli-command"}, LookPath: fakeLook()},
			offered:  []string{"my_tool"},
			backends: map[string]string{"my_tool": "external-cli-command is not installed now"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.opts)
			list, err := p.Tools(context.Background())
			var names []string
			for _, tl := range list {
				names = append(names, tl.Name)
			}
			if len(tt.offered) == 0 && err == nil {
				t.Errorf("no program found, but Tools gave no error")
			}
			if diff := cmp.Diff(tt.offered, names); diff != "" {
				t.Errorf("offered (-want +got):\n%s", diff)
			}
			for _, b := range p.Backends() {
				want, ok := tt.backends[b.Tool]
				if ok && b.Path != want && !strings.Contains(b.Note, want) {
					t.Errorf("%s: path %q note %q, want %q", b.Tool, b.Path, b.Note, want)
				}
			}
		})
	}
}

func TestSuggestions(t *testing.T) {
	p := New(Options{SuggestEnhanced: true, LookPath: fakeLook()})
	got := p.Suggestions()
	if len(got) != 2 || !strings.Contains(got[0]+got[1], "ripgrep") || !strings.Contains(got[0]+got[1], "fd-find") {
		t.Errorf("suggestions %q, want one for ripgrep and one for fd", got)
	}
	if s := New(Options{LookPath: fakeLook()}).Suggestions(); s != nil {
		t.Errorf("suggestions without suggest_enhanced_tools: %q", s)
	}
	if s := New(Options{SuggestEnhanced: true, LookPath: fakeLook("rg", "fd")}).Suggestions(); s != nil {
		t.Errorf("suggestions with everything installed: %q", s)
	}
}

// TestToolsMatchTheBuiltinContract checks that the CLI tools have the
// builtin ones' names, schemas and annotations.
func TestToolsMatchTheBuiltinContract(t *testing.T) {
	list, _ := New(Options{LookPath: fakeLook("rg", "fd")}).Tools(context.Background())
	for _, tl := range list {
		var want *tool.Tool
		for _, b := range tools.All() {
			if b.Name == tl.Name {
				want = b
			}
		}
		if want == nil {
			t.Fatalf("%s is not a builtin tool", tl.Name)
		}
		wantIn, wantOut := want.Schemas()
		in, out := tl.Schemas()
		if diff := cmp.Diff(wantIn, in); diff != "" {
			t.Errorf("%s input schema (-builtin +cli):\n%s", tl.Name, diff)
		}
		if diff := cmp.Diff(wantOut, out); diff != "" {
			t.Errorf("%s output schema (-builtin +cli):\n%s", tl.Name, diff)
		}
		if want.Description != tl.Description || want.Risk != tl.Risk || want.Annotations != tl.Annotations {
			t.Errorf("%s: description, risk or annotations differ", tl.Name)
		}
	}
}

// TestProgramTimeout runs a stand-in for rg that never answers.
func TestProgramTimeout(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "rg")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(t.TempDir(), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	p := New(Options{Timeout: 200 * time.Millisecond, LookPath: func(string) (string, error) { return slow, nil }})
	list, _ := p.Tools(context.Background())
	start := time.Now()
	_, err = call(t, ws, toolByName(t, list, "grep_search"), `{"pattern":"x"}`)
	if tool.CodeOf(err) != tool.CodeTimeout {
		t.Errorf("err %v, want TIMEOUT", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s to give up", d)
	}
}

// TestProgramFailure runs a stand-in for rg that fails: the error names it
// and carries what it said.
func TestProgramFailure(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "rg")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho 'rg: something broke' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(t.TempDir(), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	list, _ := New(Options{LookPath: func(string) (string, error) { return bad, nil }}).Tools(context.Background())
	_, err = call(t, ws, toolByName(t, list, "grep_search"), `{"pattern":"x"}`)
	if tool.CodeOf(err) != tool.CodeExecutionFailed || !strings.Contains(err.Error(), "something broke") {
		t.Errorf("err %v, want EXECUTION_FAILED with rg's message", err)
	}
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("rg's exit is not the cause of %v", err)
	}
}

func TestArgumentsCannotBecomeOptions(t *testing.T) {
	// The arguments rg and fd get for hostile input: every pattern and path
	// is inside an option's value or after "--".
	m := map[string]string{}
	ws, err := workspace.Open(t.TempDir(), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := os.Mkdir(filepath.Join(ws.Dir(), "--files"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{"--files", "-e", "--pre=sh"} {
		q := &tools.GrepQuery{Pattern: pattern, Start: "--files", StartIsDir: true}
		q.Matcher = mustCompile(t, pattern)
		args := ripgrep{}.args(q, searchCollector())
		dash := indexOf(args, "--")
		for i, a := range args[:dash] {
			if strings.HasPrefix(a, pattern) || a == "--files" {
				t.Errorf("pattern %q reached rg as option %d: %q", pattern, i, a)
			}
		}
		if args[dash+1] != "--files" || len(args) != dash+2 {
			t.Errorf("path is not alone after --: %q", args[dash:])
		}
		m[pattern] = strings.Join(args, " ")
	}
	if testing.Verbose() {
		t.Log(m)
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func mustCompile(t *testing.T, pattern string) *search.Matcher {
	t.Helper()
	m, err := search.Compile(pattern, search.PatternOptions{Fixed: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func searchCollector() *search.Collector { return search.NewCollector(search.ModeContent, 10, 1) }

// FuzzRipgrepJSON feeds arbitrary output to the reader of rg --json: it
// may refuse it, never panic.
func FuzzRipgrepJSON(f *testing.F) {
	f.Add([]byte(`{"type":"begin","data":{"path":{"text":"a.go"}}}
{"type":"match","data":{"path":{"text":"a.go"},"lines":{"text":"func New\n"},"line_number":3}}
{"type":"context","data":{"path":{"text":"a.go"},"lines":{"bytes":"/w=="},"line_number":4}}
{"type":"end","data":{"path":{"text":"a.go"}}}
`))
	f.Add([]byte("{\n"))
	f.Add([]byte(`{"type":"match","data":{"lines":{"text":"x"}}}`))
	ws, err := workspace.Open(f.TempDir(), workspace.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ws.Close() })
	f.Fuzz(func(t *testing.T, out []byte) {
		c := search.NewCollector(search.ModeContent, 5, 1)
		filter := search.NewFilter(ws, ".")
		defer filter.Close()
		rd := rgReader{q: &tools.GrepQuery{Start: "."}, c: c, filter: filter}
		_ = rd.read(bufio.NewReader(bytes.NewReader(out)))
		c.Result()
	})
}

// TestMayOfferIsTheConfiguredNames: the registry lists the provider only
// for the names it is configured for, so MayOffer must say yes to every
// tool it can list (else a lower-priority tool of that name would run in
// its place) and no to the rest.
func TestMayOfferIsTheConfiguredNames(t *testing.T) {
	p := New(Options{Aliases: map[string]string{"query_json": "jq", "read_file": "bat", "glob_search": "builtin", "bad name": "x"},
		LookPath: fakeLook("rg", "fd", "jq", "bat")})
	list, err := p.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list {
		if !p.MayOffer(tl.Name) {
			t.Errorf("MayOffer(%q) = false for a tool it lists", tl.Name)
		}
	}
	for _, name := range []string{"read_file", "query_json", "grep_search", "search_code", "glob_search"} {
		if !p.MayOffer(name) {
			t.Errorf("MayOffer(%q) = false; it is configured here", name)
		}
	}
	for _, name := range []string{"exec_command", "write_file", "bad name", "jq", "grep", "", "GREP_SEARCH"} {
		if p.MayOffer(name) {
			t.Errorf("MayOffer(%q) = true; nothing configures it here", name)
		}
	}
}

// TestDetectionRefusesAProgramFoundThroughARelativePATHEntry: the programs
// are looked up at the first search call, after the model may have written
// files. With a relative PATH entry ("bin") and the workspace as the
// current directory, a model that writes bin/rg must not have it run as
// ripgrep; os/exec refuses what a relative entry finds (exec.ErrDot).
func TestDetectionRefusesAProgramFoundThroughARelativePATHEntry(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"rg", "fd", "fdfind"} {
		if err := os.WriteFile(filepath.Join(dir, "bin", name), []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("PATH", "bin")
	p := New(Options{})
	for _, b := range p.Backends() {
		if b.Path != "" {
			t.Errorf("%s is backed by %s, found through the relative PATH entry", b.Tool, b.Path)
		}
	}
	if list, err := p.Tools(context.Background()); err == nil {
		t.Errorf("the provider offers %d tools backed by planted programs", len(list))
	}
}

// TestContract: the provider keeps the contract the registry relies on,
// with every kind of tool it serves: rg- and fd-backed search tools and a
// tool of its own that runs a program (query_json = "jq").
func TestContract(t *testing.T) {
	providertest.Run(t, func(*testing.T) provider.Provider {
		return New(Options{Aliases: map[string]string{"query_json": "jq"}, LookPath: fakeLook("rg", "fd", "jq")})
	})
}
