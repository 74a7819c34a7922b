package hooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/sandbox"
)

// TestHookAtALimit: a hook that allocates beyond [sandbox.limits]
// memory_mib has failed, naming the limit, and on_error = "block" refuses
// its call, as for a hook that times out.
func TestHookAtALimit(t *testing.T) {
	hook := hooks.Hook{Command: `cat >/dev/null; perl -e 'my $x = "a" x (512 * 1024 * 1024); print "{}\n"'`,
		OnError: hooks.OnError{Value: hooks.OnErrorBlock}}
	f := newFixture(t, hooks.Config{PreToolUse: []hooks.Hook{hook}})
	box, err := sandbox.New(sandbox.WorkspaceWrite, f.root, sandbox.Config{Limits: sandbox.Limits{MemoryMiB: 64}}, sandbox.StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	f.profile = box
	pre := f.set.Pre(context.Background(), f.call("ls"))
	if pre.Decision != hooks.Deny || len(pre.Ran) != 1 || !strings.Contains(pre.Ran[0].Error, "[sandbox.limits] memory_mib = 64") {
		t.Errorf("decision %q (%q), ran %+v; want a failed hook naming the memory limit, blocking", pre.Decision, pre.Reason, pre.Ran)
	}
}
