package workspace

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIgnoreMatch(t *testing.T) {
	tests := []struct {
		name    string
		base    string
		rules   string
		path    string
		isDir   bool
		ignored bool
	}{
		{"literal name matches at any depth", "", "build", "a/b/build", false, true},
		{"literal name does not match a longer name", "", "build", "a/builder", false, false},
		{"suffix glob matches the basename", "", "*.log", "x/y/z.log", false, true},
		{"a lone star matches everything", "", "*", "any/thing.txt", false, true},
		{"a lone star then a negation re-includes", "", "*\n!*.go", "main.go", false, false},
		{"negation only re-includes what it names", "", "*\n!*.go", "main.c", false, true},
		{"the last matching rule wins", "", "!keep.txt\n*.txt", "keep.txt", false, true},
		{"directory-only rule skips files", "", "out/", "out", false, false},
		{"directory-only rule matches directories", "", "out/", "a/out", true, true},
		{"leading slash anchors to the file's directory", "", "/top", "sub/top", false, false},
		{"leading slash matches at the base", "", "/top", "top", false, true},
		{"a middle slash anchors", "", "doc/*.md", "x/doc/a.md", false, false},
		{"a middle slash matches below base", "", "doc/*.md", "doc/a.md", false, true},
		{"star does not cross a slash", "", "doc/*.md", "doc/sub/a.md", false, false},
		{"double star matches any depth", "", "doc/**/*.md", "doc/a/b/c.md", false, true},
		{"double star matches zero directories", "", "doc/**/*.md", "doc/c.md", false, true},
		{"leading double star matches at any depth", "", "**/gen", "a/b/gen", true, true},
		{"trailing double star matches everything inside", "", "vendor/**", "vendor/a/b.go", false, true},
		{"trailing double star does not match the directory itself", "", "vendor/**", "vendor", true, false},
		{"question mark matches one character", "", "a?.txt", "ab.txt", false, true},
		{"question mark does not match a slash", "", "a?b", "a/b", false, false},
		{"bracket class", "", "[ab].txt", "b.txt", false, true},
		{"negated class", "", "[!ab].txt", "c.txt", false, true},
		{"negated class excludes its members", "", "[!ab].txt", "a.txt", false, false},
		{"negated class never matches a slash", "", "x[!a]y", "x/y", false, false},
		{"bracket closing first is a member", "", "[]a].txt", "].txt", false, true},
		{"posix class", "", "[[:digit:]].txt", "7.txt", false, true},
		{"escaped star is literal", "", `\*.txt`, "*.txt", false, true},
		{"escaped star does not glob", "", `\*.txt`, "a.txt", false, false},
		{"escaped hash is a pattern", "", `\#x`, "#x", false, true},
		{"comment is not a pattern", "", "#x", "#x", false, false},
		{"escaped bang is a literal", "", `\!x`, "!x", false, true},
		{"trailing spaces are dropped", "", "a.txt   ", "a.txt", false, true},
		{"escaped trailing space is kept", "", `a\ `, "a ", false, true},
		{"CRLF line endings", "", "a.txt\r\nb.txt\r\n", "b.txt", false, true},
		{"rules apply below their base only", "sub", "*.txt", "other/a.txt", false, false},
		{"rules of a nested file apply below it", "sub", "*.txt", "sub/deep/a.txt", false, true},
		{"anchored rules are relative to the base", "sub", "/a.txt", "sub/a.txt", false, true},
		{"anchored rules do not match deeper", "sub", "/a.txt", "sub/deep/a.txt", false, false},
		{"an unclosed bracket is literal", "", "a[b", "a[b", false, true},
		{"non-UTF-8 names match byte for byte", "", "caf\xe9*", "caf\xe9.txt", false, true},
		{"non-UTF-8 bytes are not confused with each other", "", "caf\xe9*", "caf\xe8.txt", false, false},
		{"non-ASCII patterns with a glob", "", "café*", "café.txt", false, true},
		{"non-ASCII class members", "", "[éè].txt", "è.txt", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack := IgnoreStack{ParseIgnore(tt.base, []byte(tt.rules))}
			if got := stack.Ignored(tt.path, tt.isDir); got != tt.ignored {
				t.Errorf("rules %q at %q: Ignored(%q, dir=%v) = %v, want %v", tt.rules, tt.base, tt.path, tt.isDir, got, tt.ignored)
			}
		})
	}
}

func TestIgnoreStackDeeperFileWins(t *testing.T) {
	stack := IgnoreStack{
		ParseIgnore("", []byte("*.gen\n")),
		ParseIgnore("keep", []byte("!*.gen\n")),
	}
	if !stack.Ignored("a.gen", false) {
		t.Error("root rule should ignore a.gen")
	}
	if stack.Ignored("keep/a.gen", false) {
		t.Error("the nested negation should re-include keep/a.gen")
	}
}

// gitTree is a tree whose ignore semantics are compared with git's own.
var gitTree = map[string]string{
	".gitignore":              "*.log\n/build/\n!important.log\ndocs/**/*.tmp\n[Tt]humbs.db\nout\n*~\n",
	".git/info/exclude":       "secret.txt\n",
	"important.log":           "",
	"debug.log":               "",
	"build/a.o":               "",
	"src/build/keep.go":       "",
	"src/main.go":             "",
	"src/main.go~":            "",
	"src/.gitignore":          "*.gen.go\n!keep.gen.go\n/local\n",
	"src/x.gen.go":            "",
	"src/keep.gen.go":         "",
	"src/local/a.go":          "",
	"src/sub/local/b.go":      "",
	"docs/a/b/c.tmp":          "",
	"docs/a/b/c.md":           "",
	"docs/x.tmp":              "",
	"Thumbs.db":               "",
	"thumbs.db":               "",
	"secret.txt":              "",
	"out/generated.txt":       "",
	"lib/out":                 "",
	"lib/output":              "",
	"lib/.gitignore":          "*\n!*.c\n!*/\n",
	"lib/a.c":                 "",
	"lib/a.h":                 "",
	"lib/deep/b.c":            "",
	"lib/deep/b.h":            "",
	".hidden/x.txt":           "",
	"weird name [1].txt":      "",
	"deep/1/2/3/4/5/file.txt": "",
	"deep/1/2/.gitignore":     "3/4\n",
}

// TestWalkAgreesWithGit lists the same tree with Workspace.Walk and with
// `git ls-files --others --exclude-standard`, which is git's own answer to
// "which files does .gitignore leave", and requires the same set.
func TestWalkAgreesWithGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for name, content := range gitTree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(gitBin, "init", "-q", ".")
	cmd.Dir = dir
	// git init must not replace our info/exclude: it only creates missing files.
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cmd = exec.Command(gitBin, "ls-files", "--others", "--exclude-standard", "-z")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var want []string
	for _, p := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		want = append(want, string(p))
	}
	sort.Strings(want)

	ws, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var got []string
	err = ws.Walk(".", WalkOptions{Hidden: true}, func(rel string, d os.DirEntry) error {
		if !d.IsDir() {
			got = append(got, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk and git disagree (-git +walk):\n%s", diff)
	}
}

func FuzzParseIgnore(f *testing.F) {
	for _, seed := range []string{"*.go\n!main.go\n", "/a/**/b/\n", "[!a-z]?\\*\n", "[]]\n", "[[:alpha:]\n", "**\n", "\\\n"} {
		f.Add(seed, "a/b/c.go")
	}
	f.Fuzz(func(t *testing.T, rules, path string) {
		ig := ParseIgnore("", []byte(rules))
		for _, p := range []string{path, strings.TrimPrefix(path, "/")} {
			ig.Match(p, false)
			ig.Match(p, true)
		}
	})
}
