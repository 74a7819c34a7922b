package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/internal/mcppeers"
)

// TestProtectedForEveryProcess: a path the operator protects ([policy]
// protected) stays read-only for every process Quiver starts, not only for
// exec_command's: for a stdio MCP server (the real server-filesystem, whose
// write_file an approved call asks to overwrite it) and for `quiver sandbox
// --`. A path next to it, not protected, is written, so the refusals are the
// protection's.
func TestProtectedForEveryProcess(t *testing.T) {
	fs := mcppeers.Server(t, "server-filesystem")
	config := "[policy]\nprotected = [\"secret.txt\", \"keys/**\"]\n\n" +
		"[[tools.mcp.servers]]\nname = \"fs\"\ncommand = \"node\"\nargs = [" + quote(fs) + ", \".\"]\n"
	tests := []struct {
		name, file string
		run        func(ws, file string) cliResult
		protected  bool
	}{
		{"mcp server: a protected file", "secret.txt", viaMCP(t), true},
		{"mcp server: a file under a protected glob", "keys/id.pem", viaMCP(t), true},
		{"mcp server: a file not protected", "notes.txt", viaMCP(t), false},
		{"quiver sandbox: a protected file", "secret.txt", viaSandbox(t), true},
		{"quiver sandbox: a file under a protected glob", "keys/id.pem", viaSandbox(t), true},
		{"quiver sandbox: a file not protected", "notes.txt", viaSandbox(t), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := workdir(t, map[string]string{"quiver.toml": config, tt.file: "original\n"})
			r := tt.run(ws, tt.file)
			b, err := os.ReadFile(filepath.Join(ws, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if changed := string(b) != "original\n"; changed == tt.protected {
				t.Errorf("%s now holds %q (changed %v, protected %v): %+v", tt.file, b, changed, tt.protected, r)
			}
		})
	}
}

func viaMCP(t *testing.T) func(ws, file string) cliResult {
	return func(ws, file string) cliResult {
		return runCLI(t, ws, "", "--yes", "call", "fs__write_file", `{"path":"`+file+`","content":"overwritten"}`)
	}
}

func viaSandbox(t *testing.T) func(ws, file string) cliResult {
	return func(ws, file string) cliResult {
		return runCLI(t, ws, "", "sandbox", "--", "sh", "-c", `echo overwritten > "$1"`, "sh", file)
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
