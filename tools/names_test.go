package tools

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// namedElsewhere are the built-in tools' names that Go code outside this
// package may spell, by package directory, each for a reason that is not
// knowledge of the tool.
var namedElsewhere = map[string][]string{
	// The output cache's stubs tell the model which tools read a cached
	// output, so the cache owns the names of its two readers; the tools
	// here take their names from it (outputcache.ReadTool, GrepTool), and
	// the name is still spelled once.
	"outputcache": {"tool_output_cache", "tool_output_cache_grep"},
	// The policy language: a deny rule naming read_file(PATH) refuses PATH
	// to every reader (the sandbox masks it, workspace.GuardReads refuses
	// it), and the policy reads it before there is any tool to ask.
	"policy": {"read_file"},
	// Landlock's access rights (LANDLOCK_ACCESS_FS_READ_FILE, _WRITE_FILE),
	// which only share the tools' words.
	"sandbox/launch": {"read_file", "write_file"},
	// Git's object type "tree" (a directory of a commit), as GitHub's API
	// and its fake spell it in types, URLs and answers.
	"internal/githubtest": {"tree"},
	"workspace/github":    {"tree"},
}

// TestNoPackageOutsideNamesABuiltinTool holds the line drawn in issue 32:
// what is particular to a built-in tool (how a call is shown, what its
// command subjects are, that it ends a task) is said by the tool, so no Go
// code outside this package spells a built-in tool's name in a string.
// Code that needs one takes it from here (tools.ReadFile.Name); docs,
// examples and tests are text about the tools and may name them.
func TestNoPackageOutsideNamesABuiltinTool(t *testing.T) {
	names := map[string]bool{}
	for _, c := range catalogue {
		names[c().Name] = true
	}
	for _, a := range Aliases() {
		names[a.Name] = true
	}
	used := map[string]bool{}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "tools" || d.Name() == "testdata" || rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, lit := range nameLiterals(t, path, names) {
			if slices.Contains(namedElsewhere[dir], lit.name) {
				used[dir+" "+lit.name] = true
				continue
			}
			t.Errorf("%s:%d: %q names a built-in tool; let the tool say what the code needs to know, or take the name from package tools", rel, lit.line, lit.name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, allowed := range namedElsewhere {
		for _, name := range allowed {
			if !used[dir+" "+name] {
				t.Errorf("namedElsewhere allows %s to name %s, which it no longer does: drop the entry", dir, name)
			}
		}
	}
}

// nameLiteral is a string literal that equals a tool's name.
type nameLiteral struct {
	name string
	line int
}

// nameLiterals are the string literals of the Go file path that equal one
// of names.
func nameLiterals(t *testing.T, path string, names map[string]bool) []nameLiteral {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []nameLiteral
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
			out = append(out, nameLiteral{name: s, line: fset.Position(lit.Pos()).Line})
		}
		return true
	})
	return out
}
