package main

import (
	"strings"
	"testing"

	"github.com/quiverkit/quiver/driver/drivertest"
)

// `quiver run` defers every tool but the core ones, out of the box: over
// each API's own deferral the model finds list_files by search, has it
// loaded and calls it. With [tools] always_load = ["*"] nothing is
// deferred, and the loopback, which expects list_files held back, refuses
// the first request: the setting reaches the wire.
func TestRunDefersTools(t *testing.T) {
	for _, p := range []drivertest.Provider{drivertest.Anthropic, drivertest.Responses, drivertest.DeepSeek} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			srv := drivertest.ToolSearch(t, p, drivertest.Call{Name: "list_files", Arguments: `{}`}, "files of a directory", "One file: notes.txt.")
			dir := workdir(t, map[string]string{"notes.txt": "n\n"})
			r := runCLI(t, dir, "", withoutThinking(runArgs(p, srv, "Which files are there?"))...)
			if r.code != 0 || r.stdout != "One file: notes.txt.\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q, refused %q", r.code, r.stdout, r.stderr, srv.Refused())
			}
			if !strings.Contains(r.stderr, "list_files") {
				t.Errorf("stderr does not show the call of list_files:\n%s", r.stderr)
			}
		})
	}
	t.Run("always_load", func(t *testing.T) {
		t.Parallel()
		srv := drivertest.ToolSearch(t, drivertest.DeepSeek, drivertest.Call{Name: "list_files", Arguments: `{}`}, "files", "unused")
		dir := workdir(t, map[string]string{"notes.txt": "n\n", "quiver.toml": "[tools]\nalways_load = [\"*\"]\n"})
		r := runCLI(t, dir, "", withoutThinking(runArgs(drivertest.DeepSeek, srv, "Which files are there?"))...)
		if r.code == 0 || len(srv.Refused()) != 1 || !strings.Contains(srv.Refused()[0], "offered up front") {
			t.Errorf("exit %d, refused %q, stderr %q", r.code, srv.Refused(), r.stderr)
		}
	})
}
