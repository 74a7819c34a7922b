//go:build linux

package mcp

import (
	"strings"
	"testing"

	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestCloseStopsTheWholeTree: whatever the server started — a child that
// ignores SIGTERM, a daemon that forked twice and called setsid — ends
// with its session, confined or opted out of the sandbox.
func TestCloseStopsTheWholeTree(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		noSandbox bool
	}{{"confined", false}, {"opted out", true}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testServer(t, "wrapped", "tools")
			cfg.NoSandbox = tt.noSandbox
			tree := sandboxtest.NewTree(t)
			name, value, _ := strings.Cut(tree.Env, "=")
			cfg.Env[name] = value
			cfg.Env["QUIVER_TEST_LEAVE_TREE"] = "1"
			p := newProvider(t, cfg)
			if _, err := p.Tools(t.Context()); err != nil {
				t.Fatal(err)
			}
			tree.WaitStarted(t, 1)
			if err := p.Close(); err != nil {
				t.Logf("Close: %v", err)
			}
			tree.WaitGone(t)
		})
	}
}
