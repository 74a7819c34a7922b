//go:build linux

package shell

import (
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
)

// The start-up overhead of a run against running the program directly:
// BenchmarkRunArgvTrue / BenchmarkOSExecTrue is the argv path's ratio (goal
// 1.5x), BenchmarkRunShellBinTrue / BenchmarkShCBinTrue and
// BenchmarkRunShellTrue / BenchmarkShCTrue the shell path's (goal 2x).

func BenchmarkOSExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkShCTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("sh", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkShCBinTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("sh", "-c", "/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRun(b *testing.B, spec Spec) {
	spec.Output = io.Discard
	ctx := context.Background()
	for b.Loop() {
		o, err := Run(ctx, spec)
		if err != nil || o.ExitCode != 0 {
			b.Fatalf("%+v %v", o, err)
		}
	}
}

func BenchmarkRunArgvTrue(b *testing.B) {
	e := newRunEnv(b, "/bin/true")
	spec := e.spec("")
	spec.Argv = []string{"/bin/true"}
	benchRun(b, spec)
}

func BenchmarkRunShellTrue(b *testing.B) {
	e := newRunEnv(b)
	benchRun(b, e.spec("true"))
}

func BenchmarkRunShellBinTrue(b *testing.B) {
	e := newRunEnv(b, "/bin/true")
	benchRun(b, e.spec("/bin/true"))
}

// BenchmarkRunArgvTrueSandbox is exec_command's argv path for /bin/true
// without the sandbox and under each confined profile, side by side in one
// run (goal: confined at most 2x unconfined), with the test binary
// re-executing itself as the launcher (what a host that installs nothing
// gets; the quiver-sandbox beside an installed quiver is measured by
// cmd/quiver's BenchmarkSandboxTrue).
func BenchmarkRunArgvTrueSandbox(b *testing.B) {
	e := newRunEnv(b, "/bin/true")
	for _, mode := range []sandbox.WriteScope{sandbox.Unrestricted, sandbox.ReadOnly, sandbox.WorkspaceWrite} {
		spec := e.spec("")
		spec.Argv = []string{"/bin/true"}
		box, err := sandbox.New(mode, spec.Workspace.Dir(), sandbox.Config{}, sandbox.StandardProtected)
		if err != nil {
			b.Fatal(err)
		}
		spec.Sandbox = box
		b.Run("self/"+string(mode), func(b *testing.B) { benchRun(b, spec) })
	}
}
