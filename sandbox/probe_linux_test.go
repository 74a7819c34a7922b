package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestProbeRunsNoPlantedLauncher: neither the availability probe nor a
// call starts a launcher named by the environment, however trustworthy its
// place: it would run before any confinement.
func TestProbeRunsNoPlantedLauncher(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	planted := filepath.Join(t.TempDir(), "quiver-sandbox")
	if err := os.WriteFile(planted, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("QUIVER_SANDBOX_LAUNCHER", planted)
	if err := checkKernel(); err != nil {
		t.Fatal(err)
	}
	p, err := New(WorkspaceWrite, t.TempDir(), Config{}, StandardProtected)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/true")
	if err := p.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the planted launcher ran")
	}
}

// TestABICapOnlyLowers: the test hook lowers the Landlock ABI Quiver uses,
// never raises it, and ignores what is not a number.
func TestABICapOnlyLowers(t *testing.T) {
	kernel := usedABI()
	for _, tc := range []struct {
		env  string
		want int
	}{{"", kernel}, {"x", kernel}, {"-1", kernel}, {"99", kernel}, {"4", min(4, kernel)}} {
		t.Setenv(abiCapEnv, tc.env)
		if got := usedABI(); got != tc.want {
			t.Errorf("%s=%q: ABI %d, want %d", abiCapEnv, tc.env, got, tc.want)
		}
	}
}
