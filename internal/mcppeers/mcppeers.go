// Package mcppeers finds, for tests, the real MCP servers and clients from
// npm that scripts/mcp-peers installs: server-everything, server-filesystem,
// the inspector, and the conformance suite with the Node 22 it needs; and
// codex, whose sandbox Quiver's is compared with.
//
// Tests use real peers, not mocks, so a missing peer is a set-up fault: with
// CI=true it fails the test (the suite's set-up must install it); elsewhere
// the test is skipped with the command that installs it.
package mcppeers

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the folder the peers are installed in: $QUIVER_TOOLS, or
// quiver-test-peers in the user's cache folder, where scripts/mcp-peers puts
// them.
func Dir() (string, error) {
	if d := os.Getenv("QUIVER_TOOLS"); d != "" {
		return d, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("locating the MCP peers: %w", err)
	}
	return filepath.Join(cache, "quiver-test-peers"), nil
}

// Modules is the node_modules folder of the Node 20 peers, relative to Dir.
const Modules = "mcp/node_modules"

// Need returns the path of rel below Dir, failing (CI=true) or skipping the
// test when it is not installed.
func Need(t testing.TB, rel string) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("%s is not installed: run scripts/mcp-peers", p)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// Server returns the entry point of the npm package
// @modelcontextprotocol/NAME (for example "server-filesystem"), to run with
// the system's node.
func Server(t testing.TB, name string) string {
	t.Helper()
	return Need(t, filepath.Join(Modules, "@modelcontextprotocol", name, "dist", "index.js"))
}

// Codex returns the native codex binary of npm's @openai/codex (the
// linux-x64 build its platform package ships), the reference the sandbox
// is compared with, and a CODEX_HOME for it beside the peers: codex keeps
// its helper links there and refuses to make them under /tmp.
func Codex(t testing.TB) (bin, home string) {
	t.Helper()
	bin = Need(t, "codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
	home = filepath.Join(filepath.Dir(Need(t, "codex/node_modules")), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	return bin, home
}
