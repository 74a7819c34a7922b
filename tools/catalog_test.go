package tools

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
)

// notStrict are the built-in tools OpenAI strict mode cannot describe:
// validate_output's data is any JSON value, and strict mode has no "any".
// Drivers send them with strict off.
var notStrict = map[string]bool{"validate_output": true}

// TestCatalog holds every built-in tool to the contracts a model provider
// checks: a valid name, a description, an object input schema that compiles,
// and one that OpenAI strict mode accepts after conversion. It is also where
// a tool whose types cannot be described is caught: tool.Func infers schemas
// on first use, not when All builds the tools.
func TestCatalog(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("no built-in tools")
	}
	seen := map[string]bool{}
	for _, tl := range all {
		t.Run(tl.Name, func(t *testing.T) {
			if err := tl.Check(); err != nil {
				t.Fatal(err)
			}
			if seen[tl.Name] {
				t.Fatalf("two tools named %q", tl.Name)
			}
			seen[tl.Name] = true
			if strings.TrimSpace(tl.Description) == "" {
				t.Error("no description")
			}
			in, out := schemas(t, tl)
			if in == nil || in.Type != "object" {
				t.Fatalf("input schema %v is not an object schema", in)
			}
			if out != nil && out.Type != "object" {
				t.Errorf("output schema %v is not an object schema", out)
			}
			if _, err := schema.Compile(in); err != nil {
				t.Errorf("input schema does not compile: %v", err)
			}
			strict, err := schema.OpenAIStrict(in)
			if errors.Is(err, schema.ErrNotStrict) && notStrict[tl.Name] {
				return // sent with strict off, by design
			}
			if err != nil {
				t.Fatalf("OpenAIStrict: %v", err)
			}
			if err := schema.CheckOpenAIStrict(strict); err != nil {
				t.Errorf("strict schema breaks OpenAI's rules: %v", err)
			}
			if tl.Annotations.ReadOnly && tl.Risk != tool.RiskLow {
				t.Errorf("read-only tool with risk %s", tl.Risk)
			}
		})
	}
	for _, a := range Aliases() {
		if !seen[a.Target] {
			t.Errorf("alias %s points at unknown tool %s", a.Name, a.Target)
		}
	}
}

// schemas infers tl's schemas, failing the test instead of the whole run if
// inference panics.
func schemas(t *testing.T, tl *tool.Tool) (in, out *jsonschema.Schema) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("schema inference panicked: %v", r)
		}
	}()
	return tl.Schemas()
}

// startsProcesses are the packages through which this code starts a process,
// and startProcess the calls that do it without them. A tool that starts one
// must not claim tool.InProcess: `quiver call` lets Ctrl-C kill a read-only
// InProcess call outright, and a process it started would run on.
var (
	startsProcesses = map[string]bool{
		"os/exec":                                    true,
		"github.com/quiverkit/quiver/sandbox":        true,
		"github.com/quiverkit/quiver/internal/shell": true,
	}
	startProcess = map[string]bool{"os.StartProcess": true, "syscall.ForkExec": true, "syscall.StartProcess": true, "syscall.Exec": true}
)

// TestInProcessToolsStartNoProcess checks every file of this package that
// declares a tool InProcess (one tool is one file here) for imports that
// start processes.
func TestInProcessToolsStartNoProcess(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		calls := selectors(f)
		if !calls["tool.InProcess"] {
			continue
		}
		declared++
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); startsProcesses[path] {
				t.Errorf("%s declares a tool InProcess and imports %s", name, path)
			}
		}
		for c := range calls {
			if startProcess[c] {
				t.Errorf("%s declares a tool InProcess and calls %s", name, c)
			}
		}
	}
	inCatalog := 0
	for _, tl := range All() {
		if tl.InProcess {
			inCatalog++
		}
	}
	if declared == 0 || declared != inCatalog {
		t.Errorf("%d files declare a tool InProcess, %d tools of the catalogue are: want as many, and some", declared, inCatalog)
	}
}

// selectors returns the package-qualified names f uses, such as tool.Func.
func selectors(f *ast.File) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok {
				names[x.Name+"."+sel.Sel.Name] = true
			}
		}
		return true
	})
	return names
}

// TestCatalogueListsEveryTool: the catalogue is an explicit list, so a tool
// whose files are in the package but whose constructor is not listed would
// be silently left out. Every tool has its description in NAME.md; each
// must name a listed tool.
func TestCatalogueListsEveryTool(t *testing.T) {
	listed := map[string]bool{}
	for _, c := range catalogue {
		listed[c().Name] = true
	}
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if name := strings.TrimSuffix(d, ".md"); !listed[name] {
			t.Errorf("%s describes a tool the catalogue does not list", d)
		}
	}
	if len(docs) != len(catalogue) {
		t.Errorf("%d descriptions, %d tools in the catalogue", len(docs), len(catalogue))
	}
}
