package quiver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/netproxy"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// auditedToolkit approves every call, as the red-team's --yes runs did,
// and keeps its audit records.
func auditedToolkit(t *testing.T, opts ...quiver.Option) (*quiver.Toolkit, string, *audit.Memory) {
	t.Helper()
	return newToolkit(t, append([]quiver.Option{quiver.WithApprover(approve.Auto),
		quiver.WithPolicy(mustPolicy(t, policy.Config{Default: policy.Allow}, sandbox.WorkspaceWrite))}, opts...)...)
}

// lastRecord is the record of the last call.
func lastRecord(t *testing.T, sink *audit.Memory) audit.Record {
	t.Helper()
	rs := sink.Records()
	if len(rs) == 0 {
		t.Fatal("no audit record")
	}
	return rs[len(rs)-1]
}

// TestAuditRecordSaysWhatRan is issue 18 item 14: the B1 call was logged
// only as "exec_command allow ok". The record now quotes the arguments and
// lists every program the line started, as it started it (after
// expansion), so the pager smuggled into git grep's -O is in plain sight.
func TestAuditRecordSaysWhatRan(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed (scripts/test installs it): %v", err)
	}
	tk, dir, sink := auditedToolkit(t)
	for _, args := range [][]string{{"init", "-q"}, {"add", "notes.txt"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	line := `P='true;'; N=one; git grep "-O$P" "$N" >/dev/null; /bin/echo finished`
	if _, err := tk.Invoke(context.Background(), "exec_command", map[string]any{"command": line}); err != nil {
		t.Fatal(err)
	}
	r := lastRecord(t, sink)
	if diff := cmp.Diff([]string{"git grep '-Otrue;' one", "/bin/echo finished"}, r.Commands); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	var args map[string]string
	if err := json.Unmarshal(r.Arguments, &args); err != nil || args["command"] != line {
		t.Errorf("arguments %s (%v), want the command line", r.Arguments, err)
	}
}

func TestAuditRecordRedactsSecrets(t *testing.T) {
	tk, _, sink := auditedToolkit(t, quiver.WithAuditRedact("pin"))
	_, err := tk.Invoke(context.Background(), "exec_command", map[string]any{
		"command": "/bin/echo --password hunter2 --card-pin=1234; /bin/true",
		"env":     []string{"GITHUB_TOKEN=ghp_secret", "LANG=C"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := lastRecord(t, sink)
	text := string(r.Arguments) + strings.Join(r.Commands, "\n")
	for _, secret := range []string{"hunter2", "1234", "ghp_secret"} {
		if strings.Contains(text, secret) {
			t.Errorf("%q reached the record: %s", secret, text)
		}
	}
	want := []string{"/bin/echo --password '[REDACTED]' '--card-pin=[REDACTED]'", "/bin/true"}
	if diff := cmp.Diff(want, r.Commands); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(r.Arguments), `"GITHUB_TOKEN=[REDACTED]"`) || !strings.Contains(string(r.Arguments), `"LANG=C"`) {
		t.Errorf("arguments: %s", r.Arguments)
	}
}

func TestAuditRecordIsBounded(t *testing.T) {
	tk, _, sink := auditedToolkit(t)
	ctx := context.Background()
	content := strings.Repeat("0123456789abcdef", 5<<16) // 5 MiB
	res, err := quiver.Call(ctx, tk, tools.WriteFile, tools.WriteFileInput{Path: "big.txt", Content: content})
	if err != nil {
		t.Fatal(err)
	}
	r := lastRecord(t, sink)
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(line) > 4<<10 {
		t.Errorf("the record of a 5 MiB write is %d bytes", len(line))
	}
	if !strings.Contains(string(r.Arguments), "bytes in all, sha256 "+res.SHA256) {
		t.Errorf("arguments do not name the content's size and hash %s: %.300s", res.SHA256, r.Arguments)
	}
}

func TestAuditRecordOfARefusedCall(t *testing.T) {
	tk, _, sink := auditedToolkit(t, quiver.WithPolicy(mustPolicy(t, policy.Config{Default: policy.Allow, Deny: []string{"exec_command(rm *)"}}, sandbox.WorkspaceWrite)))
	ctx := context.Background()
	tk.Invoke(ctx, "exec_command", map[string]any{"command": "rm -rf x"})
	r := lastRecord(t, sink)
	if r.Outcome != "TOOL_NOT_ALLOWED" || string(r.Arguments) != `{"command":"rm -rf x"}` || len(r.Commands) != 0 {
		t.Errorf("refused call: outcome %s, arguments %s, commands %q", r.Outcome, r.Arguments, r.Commands)
	}
	tk.InvokeCall(ctx, driver.ToolCall{Name: "read_file", Arguments: json.RawMessage(`{"path": "a", "token": "t0k3n"`)})
	r = lastRecord(t, sink)
	if r.Outcome != "INVALID_TOOL_ARGUMENTS_TYPE" || string(r.Arguments) != `"{\"path\": \"a\", \"token\": [REDACTED]"` {
		t.Errorf("malformed call: outcome %s, arguments %s", r.Outcome, r.Arguments)
	}
}

// TestAuditRecordWritesOneLine holds the JSON Lines sink to one parseable
// line per call whatever the arguments hold.
func TestAuditRecordWritesOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tk, _, _ := auditedToolkit(t, quiver.WithAudit(audit.NewJSONLines(f)))
	tk.Invoke(context.Background(), "exec_command", map[string]any{"command": "/bin/echo 'a\nb\u2028c' \"$(printf '\\r\\n')\""})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 1 || !json.Valid([]byte(lines[0])) {
		t.Errorf("%d lines, valid %v:\n%s", len(lines), json.Valid([]byte(lines[0])), data)
	}
}

// reachingProvider stands for an MCP server whose process reached a host
// between calls: its tool adds that request to the call's tally, as
// provider/mcp's do, and it keeps the sink the toolkit hands it.
type reachingProvider struct{ sink audit.Sink }

func (p *reachingProvider) ID() string               { return "mcp:reaching" }
func (p *reachingProvider) Priority() int            { return provider.PriorityMCP }
func (p *reachingProvider) SetAudit(sink audit.Sink) { p.sink = sink }
func (p *reachingProvider) Tools(context.Context) ([]*tool.Tool, error) {
	return []*tool.Tool{{Name: "reaching__tool", Description: "Reaches a host.", InputSchema: &jsonschema.Schema{Type: "object"}, Risk: tool.RiskLow,
		Execute: func(ctx context.Context, tc tool.Context, _ json.RawMessage) (tool.Result, error) {
			box, err := tool.Resolve(ctx, tc, sandbox.Key)
			if err != nil {
				return tool.Result{}, err
			}
			box.Contacts().Record(netproxy.Contact{Host: "between.test", Port: "443", Method: "CONNECT", Allowed: true})
			return tool.Text("reached"), nil
		}}}, nil
}

// TestProvidersCarryHostsIntoTheRecord: every call's sandbox profile counts
// requests for its record, whether or not the toolkit's own network is a
// list (an MCP server's may be when the toolkit's is not), so a provider's
// tool can carry what its server reached between calls; and a provider
// that records on its own (provider.Audited) gets the toolkit's sink.
func TestProvidersCarryHostsIntoTheRecord(t *testing.T) {
	p := &reachingProvider{}
	tk, _, sink := auditedToolkit(t, quiver.WithProvider(p))
	if p.sink != audit.Sink(sink) {
		t.Errorf("the provider was given %v, not the toolkit's sink", p.sink)
	}
	if _, err := tk.Invoke(context.Background(), "reaching__tool", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	want := []audit.Host{{Host: "between.test", Port: "443", Method: "CONNECT", Allowed: true, Count: 1}}
	if diff := cmp.Diff(want, lastRecord(t, sink).Hosts); diff != "" {
		t.Errorf("the call's record (-want +got):\n%s", diff)
	}
}
