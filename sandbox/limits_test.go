package sandbox_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"

	"github.com/quiverkit/quiver/sandbox"
)

// TestLimitsConfig: [sandbox.limits] reads as written, the profile carries
// it, and a negative limit is refused naming its key.
func TestLimitsConfig(t *testing.T) {
	var cfg sandbox.Config
	if err := toml.Unmarshal([]byte("[limits]\nprocesses = 64\nmemory_mib = 256\ncpu_seconds = 5\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	want := sandbox.Limits{Processes: 64, MemoryMiB: 256, CPUSeconds: 5}
	if diff := cmp.Diff(want, cfg.Limits); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
	p, err := sandbox.New(sandbox.WorkspaceWrite, t.TempDir(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, p.Limits); diff != "" {
		t.Errorf("profile's limits (-want +got):\n%s", diff)
	}
	if got := (sandbox.Limits{}).String(); got != "processes 4096 per call, memory none, CPU time none" {
		t.Errorf("default limits: %q", got)
	}
	for _, bad := range []sandbox.Limits{{Processes: -1}, {MemoryMiB: -1}, {CPUSeconds: -1}} {
		_, err := sandbox.New(sandbox.WorkspaceWrite, t.TempDir(), sandbox.Config{Limits: bad}, nil)
		if err == nil || !strings.Contains(err.Error(), "sandbox.limits.") {
			t.Errorf("%+v: %v, want a refusal naming the key", bad, err)
		}
	}
}
