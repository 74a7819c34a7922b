package policy_test

import (
	"strings"
	"testing"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// remote is a workspace served by a read-only backend.
type remote struct{}

func (remote) Rel(p string) (string, error)     { return p, nil }
func (remote) Resolve(p string) (string, error) { return p, nil }
func (remote) ReadOnlyBackend() string          { return "github acme/app@main" }

// TestReadOnlyBackendOffersReaders: on a workspace a read-only backend
// serves, only tools that read in process are offered, whatever the rules
// allow; the refusal names the backend.
func TestReadOnlyBackendOffersReaders(t *testing.T) {
	p, err := policy.New(policy.Config{Default: policy.Allow, Allow: []string{"exec_command", "write_file"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	p = p.InWorkspace(remote{})
	for _, tc := range []struct {
		name             string
		readOnly, inProc bool
		offered          bool
	}{
		{"read_file", true, true, true},
		{"write_file", false, true, false},
		{"exec_command", false, false, false},
		{"git_status_summary", true, false, false},
	} {
		tl := &tool.Tool{Name: tc.name, Risk: tool.RiskLow, InProcess: tc.inProc, Annotations: tool.Annotations{ReadOnly: tc.readOnly}}
		err := p.Gate(tl)
		if (err == nil) != tc.offered || p.Visible(tl) != tc.offered {
			t.Errorf("%s: gate %v, visible %v; want offered %v", tc.name, err, p.Visible(tl), tc.offered)
		}
		if err != nil && (tool.CodeOf(err) != tool.CodeToolNotAllowed || !strings.Contains(err.Error(), "github acme/app@main")) {
			t.Errorf("%s: %v, want TOOL_NOT_ALLOWED naming the backend", tc.name, err)
		}
	}
}
