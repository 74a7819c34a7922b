package launch

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestLayersAreNeeded: the escape attempts of testdata/escapes.txt that a
// layer alone stops get through once that layer is left out (Spec.Without),
// so the tests that run them (TestSandboxEscapes, TestSandboxCommandEscapes)
// are known to fail without it: class 4 without closing the inherited
// descriptors, class 5 without the IPC namespace. Every other layer stays,
// so an attempt another layer also stops (reopening an inherited file by
// its path, which Landlock refuses) may hold; at least one of each class
// must not.
func TestLayersAreNeeded(t *testing.T) {
	escapes := sandboxtest.LoadEscapes(t, "../../testdata/escapes.txt")
	w := sandboxtest.NewWatch(t)
	w.ShareHere(t)
	for _, tc := range []struct {
		class int
		layer string
	}{{4, layerInheritedFDs}, {5, layerIPC}} {
		t.Run(tc.layer, func(t *testing.T) {
			var through []string
			for _, e := range escapes {
				if e.Class != tc.class {
					continue
				}
				ws := w.Workspace(t, e)
				out, err := runConfined(t, Spec{Workspace: ws, Without: []string{tc.layer}}, "bash", "-c", w.Expand(e.Command))
				if what := w.TouchedIn(t, e, ws, out); what != "" {
					through = append(through, e.Name)
					t.Logf("%s: through without the layer: %s", e.Name, what)
				} else {
					t.Logf("%s: held without the layer (exit %v): %s", e.Name, err, out)
				}
			}
			if len(through) == 0 {
				t.Errorf("without the layer %q no attempt of class %d gets through: its lines prove nothing about it", tc.layer, tc.class)
			}
		})
	}
}

// TestWithoutIsOnlyAGoField: the hook that leaves layers out cannot be set
// from a call: a spec in the call's environment is replaced by the one
// Command writes, and the launcher's environment is that spec alone.
func TestWithoutIsOnlyAGoField(t *testing.T) {
	ws := t.TempDir()
	forged, err := json.Marshal(Spec{Workspace: ws, Without: []string{layerIPC, layerInheritedFDs}, Path: "/bin/true", Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Env: []string{specEnv + "=" + string(forged), "QUIVER_SANDBOX_WITHOUT=ipc"}}
	if err := Command(Spec{Workspace: ws, Path: "/bin/true", Args: []string{"true"}}, cmd); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cmd.Env[0], specEnv+"=") || !slices.Equal(cmd.Env[1:], RaceEnv) {
		t.Fatalf("the launcher's environment: %q", cmd.Env)
	}
	var s Spec
	if err := json.Unmarshal([]byte(strings.TrimPrefix(cmd.Env[0], specEnv+"=")), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Without) != 0 || cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWIPC == 0 {
		t.Errorf("the launcher leaves out %q (IPC namespace: %v)", s.Without, cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWIPC != 0)
	}
	for _, kv := range s.Env {
		if strings.HasPrefix(kv, specEnv+"=") {
			t.Errorf("the program's environment carries a spec: %.60s...", kv)
		}
	}
}
