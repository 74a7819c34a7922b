package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// quiver version reports the module's build info, the same the go command
// embedded in this binary (the test binary is the command), as a line and,
// under the global --json, as an object.
func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build info in the test binary")
	}
	dir := workdir(t, nil)
	r := runCLI(t, dir, "", "--json", "version")
	var got versionJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
		t.Fatalf("--json version: exit %d, %v, stdout %q", r.code, err, r.stdout)
	}
	if want := (versionJSON{Version: bi.Main.Version, Go: runtime.Version()}); got.Version != want.Version || got.Go != want.Go {
		t.Errorf("--json version: %s", cmp.Diff(want, got))
	}
	text := runCLI(t, dir, "", "version")
	if want := "quiver " + got.String() + "\n"; text.code != 0 || text.stdout != want || strings.Contains(text.stdout, "dev\n") {
		t.Errorf("version: exit %d, %q; want %q", text.code, text.stdout, want)
	}
}

// Every command's argument check says the command's usage when it fails,
// those added later included.
func TestArgErrorsCarryUsage(t *testing.T) {
	t.Parallel()
	var walk func(*testing.T, []string)
	root := (&app{}).rootCommand()
	checked := 0
	walk = func(t *testing.T, path []string) {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{nil, strings.Fields("a b c d e")} {
			if cmd.Args == nil {
				continue
			}
			if err := cmd.Args(cmd, args); err != nil {
				checked++
				if !strings.HasSuffix(err.Error(), "\nusage: "+cmd.UseLine()) {
					t.Errorf("%s with %d arguments: %q, want it to end with the usage line %q", cmd.CommandPath(), len(args), err, cmd.UseLine())
				}
			}
		}
		for _, sub := range cmd.Commands() {
			walk(t, append(path, sub.Name()))
		}
	}
	walk(t, nil)
	if checked < 8 {
		t.Errorf("%d argument errors checked; the tree has more commands than that", checked)
	}
}
