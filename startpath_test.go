package quiver_test

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

// startPath is the package through which every process Quiver starts goes
// (sandbox.Process, see the sandbox package doc): the one place that
// applies the sandbox, the minimal environment, the process group or PID
// namespace, the kill of the whole tree and the output grace.
const startPath = "sandbox"

// processStarters are the calls and the type that start a process, or
// prepare one to be started, and the system call numbers of a raw fork, by
// import path and name.
var processStarters = map[string][]string{
	"os/exec":               {"Command", "CommandContext", "Cmd"},
	"os":                    {"StartProcess"},
	"syscall":               {"ForkExec", "StartProcess", "Exec", "SYS_CLONE", "SYS_CLONE3", "SYS_FORK", "SYS_VFORK"},
	"golang.org/x/sys/unix": {"Exec", "SYS_CLONE", "SYS_CLONE3", "SYS_FORK", "SYS_VFORK"},
}

// startAllowed are the files outside the start path that may use a starter,
// each with the reason.
var startAllowed = map[string]string{
	"sandbox/launch/launch_linux.go":                "launch.Command rewrites the start path's command to start the launcher",
	"sandbox/launch/launcher_linux.go":              "launch.Probe prepares the start path's availability probe",
	"sandbox/launch/pidns_linux.go":                 "the launcher, init of the call's PID namespace, forks the program once it has confined itself",
	"sandbox/launch/launchtest/launchtest_linux.go": "test harness, linked only into tests: go build of the launcher the tests install",
	"sandbox/sandboxtest/host_linux.go":             "test harness, linked only into tests: the host processes escape attempts aim at",
	"sandbox/sandboxtest/host_other.go":             "test harness, linked only into tests",
	"sandbox/sandboxtest/sandboxtest.go":            "test harness, linked only into tests: hands a test's own command the watched host state",
	"sandbox/sandboxtest/workspace.go":              "test harness, linked only into tests: the user's own git and compiler, run outside any sandbox on purpose",
	"internal/redistest/redistest.go":               "test harness, linked only into tests: the redis-server the Redis store's tests talk to, run on the host",
	"internal/githubtest/repo.go":                   "test harness, linked only into tests: git ls-tree and cat-file read the local repository the GitHub fake serves",
	"sandbox/sandboxtest/nobody_linux.go":           "test harness, linked only into tests: runs a test again as the user nobody, whose processes RLIMIT_NPROC counts",
}

// TestOneStartPath: no file outside the start path starts a process (or
// builds an exec.Cmd) itself, on any platform, but the few allowed above.
func TestOneStartPath(t *testing.T) {
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == startPath {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		uses := starterUses(f)
		if len(uses) == 0 {
			return nil
		}
		slash := filepath.ToSlash(path)
		if _, ok := startAllowed[slash]; ok {
			seen[slash] = true
			return nil
		}
		for _, u := range uses {
			t.Errorf("%s: %s: start processes through the sandbox package's start path (sandbox.Command, Group.Command)", fset.Position(u.pos), u.name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for f, why := range startAllowed {
		if !seen[f] {
			t.Errorf("%s is allowed to start processes (%s) but no longer does: drop it from startAllowed", f, why)
		}
	}
}

type starterUse struct {
	pos  token.Pos
	name string
}

// starterUses returns the uses of processStarters in f, by the names f
// imports their packages under.
func starterUses(f *ast.File) []starterUse {
	local := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := processStarters[path]; !ok {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = path
	}
	var uses []starterUse
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if path, ok := local[id.Name]; ok && slices.Contains(processStarters[path], sel.Sel.Name) {
			uses = append(uses, starterUse{sel.Pos(), path + "." + sel.Sel.Name})
		}
		return true
	})
	return uses
}
