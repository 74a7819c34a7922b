package quiver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// echoInput is the input of the test tools.
type echoInput struct {
	Text  string `json:"text" jsonschema:"what to echo"`
	Times int    `json:"times,omitempty" minimum:"1" maximum:"5"`
	Path  string `json:"path,omitempty"`
}

type echoOutput struct {
	Text string `json:"text"`
}

// testTools are host tools covering each pipeline outcome.
func testTools(created *atomic.Int32) []*tool.Tool {
	counter := tool.Key[int32]{ID: "test.counter", Create: func(context.Context) (int32, error) {
		return created.Add(1), nil
	}}
	broken := tool.Key[string]{ID: "test.broken", Create: func(context.Context) (string, error) {
		return "", errors.New("database is down")
	}}
	return []*tool.Tool{
		tool.Func("echo", "Echoes text.", func(_ context.Context, _ tool.Context, in echoInput) (echoOutput, error) {
			return echoOutput{Text: strings.Repeat(in.Text, max(in.Times, 1))}, nil
		}, tool.ReadOnly(), tool.WithSubjects(func(in echoInput) []tool.Subject {
			if in.Path == "" {
				return nil
			}
			return tool.PathSubject(in.Path)
		})),
		tool.Func("write_note", "Writes a note.", func(ctx context.Context, tc tool.Context, in echoInput) (echoOutput, error) {
			ws, err := workspace.From(ctx, tc)
			if err != nil {
				return echoOutput{}, err
			}
			return echoOutput{Text: "written"}, ws.WriteFile(in.Path, []byte(in.Text), 0o644)
		}, tool.WithSubjects(func(in echoInput) []tool.Subject { return tool.PathSubject(in.Path) })),
		tool.Func("panics", "Panics.", func(context.Context, tool.Context, echoInput) (echoOutput, error) {
			panic("boom")
		}, tool.ReadOnly()),
		tool.Func("deps", "Resolves a dependency twice.", func(ctx context.Context, tc tool.Context, in echoInput) (echoOutput, error) {
			a, err := tool.Resolve(ctx, tc, counter)
			if err != nil {
				return echoOutput{}, err
			}
			b, _ := tool.Resolve(ctx, tc, counter)
			if in.Text == "broken" {
				if _, err := tool.Resolve(ctx, tc, broken); err != nil {
					return echoOutput{}, err
				}
			}
			return echoOutput{Text: strings.Repeat("x", int(a)) + "/" + strings.Repeat("x", int(b))}, nil
		}, tool.ReadOnly()),
		tool.Func("waits", "Waits for its context.", func(ctx context.Context, _ tool.Context, _ echoInput) (echoOutput, error) {
			<-ctx.Done()
			return echoOutput{}, ctx.Err()
		}, tool.ReadOnly()),
	}
}

func newToolkit(t *testing.T, opts ...quiver.Option) (*quiver.Toolkit, string, *audit.Memory) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sink := &audit.Memory{}
	var created atomic.Int32
	base := []quiver.Option{quiver.WithRoot(dir), builtin.Standard(), quiver.WithAudit(sink), quiver.WithTools(testTools(&created)...)}
	tk, err := quiver.New(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk, dir, sink
}

func mustPolicy(t *testing.T, cfg policy.Config, scope sandbox.WriteScope) *policy.Policy {
	t.Helper()
	p, err := policy.New(cfg, scope)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInvokeErrorCodes(t *testing.T) {
	denyWrites := mustPolicy(t, policy.Config{Deny: []string{"write_note", "echo(secret/**)"}}, sandbox.WorkspaceWrite)
	askWrites := mustPolicy(t, policy.Config{Ask: []string{"write_note"}}, sandbox.WorkspaceWrite)
	cases := []struct {
		name string
		opts []quiver.Option
		tool string
		args any
		want tool.Code
	}{
		{"unknown tool is TOOL_NOT_FOUND", nil, "nope", map[string]any{}, tool.CodeToolNotFound},
		{"bare deny is TOOL_NOT_ALLOWED before arguments are read", []quiver.Option{quiver.WithPolicy(denyWrites)}, "write_note", `not json`, tool.CodeToolNotAllowed},
		{"deny by path specifier is TOOL_NOT_ALLOWED", []quiver.Option{quiver.WithPolicy(denyWrites)}, "echo", map[string]any{"text": "a", "path": "secret/key"}, tool.CodeToolNotAllowed},
		{"ask refused by the approver is APPROVAL_DENIED", []quiver.Option{quiver.WithPolicy(askWrites), quiver.WithApprover(approve.Deny)}, "write_note", map[string]any{"text": "a", "path": "n"}, tool.CodeApprovalDenied},
		{"high risk defaults to ask, and the default approver denies", nil, "write_note", map[string]any{"text": "a", "path": "n"}, tool.CodeApprovalDenied},
		{"array arguments", nil, "echo", json.RawMessage(`[1]`), tool.CodeInvalidToolArgumentsType},
		{"string arguments", nil, "echo", "x", tool.CodeInvalidToolArgumentsType},
		{"number arguments", nil, "echo", 123, tool.CodeInvalidToolArgumentsType},
		{"null arguments", nil, "echo", nil, tool.CodeInvalidToolArgumentsType},
		{"boolean arguments", nil, "echo", true, tool.CodeInvalidToolArgumentsType},
		{"malformed JSON", nil, "echo", json.RawMessage(`{"text":`), tool.CodeInvalidToolArgumentsType},
		{"missing required field", nil, "echo", map[string]any{}, tool.CodeInvalidArguments},
		{"wrong type", nil, "echo", map[string]any{"text": 5}, tool.CodeInvalidArguments},
		{"extra field", nil, "echo", map[string]any{"text": "a", "colour": "red"}, tool.CodeInvalidArguments},
		{"out of range number", nil, "echo", map[string]any{"text": "a", "times": 9}, tool.CodeInvalidArguments},
		{"path outside the workspace is SANDBOX_VIOLATION", []quiver.Option{quiver.WithApprover(approve.Auto)}, "write_note", map[string]any{"text": "a", "path": "../escape"}, tool.CodeSandboxViolation},
		{"a panic is INTERNAL", nil, "panics", map[string]any{"text": "a"}, tool.CodeInternal},
		{"a dependency that fails to build is EXECUTION_FAILED", nil, "deps", map[string]any{"text": "broken"}, tool.CodeExecutionFailed},
		{"a missing file is NOT_FOUND", nil, "read_file", map[string]any{"path": "absent.txt"}, tool.CodeNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tk, dir, sink := newToolkit(t, tc.opts...)
			out, err := tk.Invoke(context.Background(), tc.tool, tc.args)
			var te *tool.Error
			if !errors.As(err, &te) {
				t.Fatalf("Invoke error = %v, want a *tool.Error", err)
			}
			if te.Code != tc.want {
				t.Fatalf("code = %s (%s), want %s", te.Code, te.Message, tc.want)
			}
			if te.Tool != tc.tool || te.Retriable != tc.want.Retriable() {
				t.Errorf("error tool/retriable = %q/%v, want %q/%v", te.Tool, te.Retriable, tc.tool, tc.want.Retriable())
			}
			wantText := "Error executing tool " + tc.tool + ": " + string(tc.want) + ": "
			if !out.Content.IsError || !strings.HasPrefix(out.Content.String(), wantText) {
				t.Errorf("model view = %q, want an error result starting %q", out.Content.String(), wantText)
			}
			recs := sink.Records()
			if len(recs) != 1 || recs[0].Outcome != string(tc.want) || recs[0].CallID == "" {
				t.Errorf("audit = %+v, want one record with outcome %s", recs, tc.want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("the workspace changed: %d entries", len(entries))
			}
		})
	}
}

func TestInvokeFieldErrorsNameTheField(t *testing.T) {
	tk, _, _ := newToolkit(t)
	cases := []struct {
		args       string
		field, has string
	}{
		{`{}`, "text", "required"},
		{`{"text":1}`, "text", "type"},
		{`{"text":"a","colour":1}`, "colour", "unknown field"},
		{`{"text":"a","times":0}`, "times", "minimum"},
	}
	for _, c := range cases {
		_, err := tk.Invoke(context.Background(), "echo", json.RawMessage(c.args))
		var te *tool.Error
		if !errors.As(err, &te) || te.Details["field"] != c.field || !strings.Contains(te.Message, c.has) {
			t.Errorf("%s: error = %v (details %v), want field %q and %q", c.args, err, te.Details, c.field, c.has)
		}
	}
}

func TestInvokeSuccess(t *testing.T) {
	tk, _, sink := newToolkit(t)
	out, err := tk.Invoke(context.Background(), "echo", map[string]any{"text": "ab", "times": 2})
	if err != nil {
		t.Fatal(err)
	}
	want := quiver.Output{Name: "echo", CallID: out.CallID, Provider: "host",
		Content: tool.Result{Parts: []tool.Part{{Type: tool.PartJSON, JSON: json.RawMessage(`{"text":"abab"}`)}}, Output: echoOutput{Text: "abab"}}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if r := sink.Records()[0]; r.Outcome != "ok" || r.Decision != "allow" || r.Provider != "host" || r.Tool != "echo" {
		t.Errorf("audit record = %+v", r)
	}
}

func TestOptionalNullsAreAbsent(t *testing.T) {
	// OpenAI strict mode sends null for optional fields it made nullable.
	tk, _, _ := newToolkit(t)
	out, err := tk.Invoke(context.Background(), "echo", json.RawMessage(`{"text":"a","times":null,"path":null}`))
	if err != nil || out.Content.Output.(echoOutput).Text != "a" {
		t.Fatalf("Invoke = %v, %v", out.Content.Output, err)
	}
}

func TestPanicRecoveryKeepsTheToolkitWorking(t *testing.T) {
	var logs bytes.Buffer
	tk, _, _ := newToolkit(t, quiver.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	for range 3 {
		if _, err := tk.Invoke(context.Background(), "panics", map[string]any{"text": "a"}); tool.CodeOf(err) != tool.CodeInternal {
			t.Fatalf("panics: %v", err)
		}
	}
	if _, err := tk.Invoke(context.Background(), "echo", map[string]any{"text": "still here"}); err != nil {
		t.Fatalf("after panics: %v", err)
	}
	if !strings.Contains(logs.String(), `"msg":"tool panicked"`) || !strings.Contains(logs.String(), `"panic":"boom"`) ||
		!strings.Contains(logs.String(), "goroutine ") {
		t.Errorf("the log lacks the panic and its stack: %.300s", logs.String())
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	tk, _, _ := newToolkit(t, quiver.WithTimeout(20_000_000)) // 20ms
	if _, err := tk.Invoke(context.Background(), "waits", map[string]any{"text": "a"}); tool.CodeOf(err) != tool.CodeTimeout {
		t.Errorf("timeout: %v, want TIMEOUT", err)
	}
	tk2, _, _ := newToolkit(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tk2.Invoke(ctx, "waits", map[string]any{"text": "a"}); tool.CodeOf(err) != tool.CodeCancelled {
		t.Errorf("cancel: %v, want CANCELLED", err)
	}
}

func TestDependencies(t *testing.T) {
	t.Run("a value is created once per call", func(t *testing.T) {
		tk, _, _ := newToolkit(t)
		for _, want := range []string{"x/x", "xx/xx"} {
			out, err := tk.Invoke(context.Background(), "deps", map[string]any{"text": "a"})
			if err != nil || out.Content.Output.(echoOutput).Text != want {
				t.Fatalf("deps = %v, %v; want %q", out.Content.Output, err, want)
			}
		}
	})
	t.Run("an override by ID replaces Create", func(t *testing.T) {
		tk, _, _ := newToolkit(t, quiver.WithOverride("test.counter", func(context.Context) (any, error) { return int32(3), nil }))
		out, err := tk.Invoke(context.Background(), "deps", map[string]any{"text": "a"})
		if err != nil || out.Content.Output.(echoOutput).Text != "xxx/xxx" {
			t.Fatalf("deps = %v, %v", out.Content.Output, err)
		}
	})
	t.Run("a failing dependency names its key", func(t *testing.T) {
		tk, _, _ := newToolkit(t)
		_, err := tk.Invoke(context.Background(), "deps", map[string]any{"text": "broken"})
		if tool.CodeOf(err) != tool.CodeExecutionFailed || !strings.Contains(err.Error(), `"test.broken"`) || !strings.Contains(err.Error(), "database is down") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a shared value lives as long as the toolkit", func(t *testing.T) {
		tk, _, _ := newToolkit(t)
		var made atomic.Int32
		key := tool.Key[int32]{ID: "test.shared", Shared: true, Create: func(context.Context) (int32, error) { return made.Add(1), nil }}
		for range 3 {
			if _, err := quiver.Dependency(context.Background(), tk, key); err != nil {
				t.Fatal(err)
			}
		}
		if made.Load() != 1 {
			t.Errorf("shared value made %d times", made.Load())
		}
	})
}

func TestWriteScopes(t *testing.T) {
	allow := policy.Config{Default: policy.Allow}
	cases := []struct {
		scope sandbox.WriteScope
		path  string
		want  tool.Code
	}{
		{sandbox.ReadOnly, "n.txt", tool.CodeToolNotAllowed},
		{sandbox.WorkspaceWrite, "n.txt", ""},
		{sandbox.WorkspaceWrite, "/tmp/quiver-outside-" + t.Name(), tool.CodeSandboxViolation},
	}
	for _, c := range cases {
		tk, _, _ := newToolkit(t, quiver.WithPolicy(mustPolicy(t, allow, c.scope)))
		_, err := tk.Invoke(context.Background(), "write_note", map[string]any{"text": "a", "path": c.path})
		if tool.CodeOf(err) != c.want {
			t.Errorf("%s %s: %v, want %q", c.scope, c.path, err, c.want)
		}
	}
	t.Run("unrestricted writes outside by absolute path", func(t *testing.T) {
		outside := filepath.Join(t.TempDir(), "n.txt")
		tk, _, _ := newToolkit(t, quiver.WithPolicy(mustPolicy(t, allow, sandbox.Unrestricted)))
		if _, err := tk.Invoke(context.Background(), "write_note", map[string]any{"text": "a", "path": outside}); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(outside); string(b) != "a" {
			t.Errorf("outside file = %q", b)
		}
	})
}

func TestAllowedTools(t *testing.T) {
	tk, _, _ := newToolkit(t, quiver.WithPolicy(mustPolicy(t, policy.Config{Deny: []string{"echo", "read_file(.env)"}}, sandbox.ReadOnly)))
	tools, err := tk.AllowedTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	// echo: bare deny; write_note: writes under read-only; read_file: only a
	// specifier rule names it, so it stays.
	for _, n := range names {
		if n == "echo" || n == "write_note" {
			t.Errorf("AllowedTools includes %s: %v", n, names)
		}
	}
	if !strings.Contains(strings.Join(names, ","), "read_file") {
		t.Errorf("AllowedTools lacks read_file: %v", names)
	}
}

func TestAliases(t *testing.T) {
	tk, _, _ := newToolkit(t, quiver.WithAlias(provider.Alias{Name: "say", Target: "echo", Renames: map[string]string{"words": "text"}}))
	out, err := tk.Invoke(context.Background(), "say", map[string]any{"words": "hi"})
	if err != nil || out.Content.Output.(echoOutput).Text != "hi" || out.Name != "say" {
		t.Fatalf("alias call = %+v, %v", out, err)
	}
}

// lowProvider serves one tool below the host's tools, where a tool of the
// same name is shadowed.
type lowProvider struct{ tools []*tool.Tool }

func (lowProvider) ID() string                                    { return "low" }
func (lowProvider) Priority() int                                 { return provider.PriorityBuiltin - 1 }
func (p lowProvider) Tools(context.Context) ([]*tool.Tool, error) { return p.tools, nil }

// TestOnlyProvider: WithOnlyProvider serves every call from the provider it
// names, a shadowed tool included (quiver call --provider), and finds nothing
// that provider does not serve.
func TestOnlyProvider(t *testing.T) {
	low := lowProvider{tools: []*tool.Tool{tool.Func("echo", "Echoes text, from below.",
		func(_ context.Context, _ tool.Context, in echoInput) (echoOutput, error) {
			return echoOutput{Text: "low:" + in.Text}, nil
		}, tool.ReadOnly())}}
	type result struct {
		Text, Provider string
		Code           tool.Code
	}
	tests := []struct {
		name, only, tool string
		want             result
	}{
		{"every provider", "", "echo", result{Text: "hi", Provider: "host"}},
		{"the shadowed one", "low", "echo", result{Text: "low:hi", Provider: "low"}},
		{"the top one", "host", "echo", result{Text: "hi", Provider: "host"}},
		{"a tool it lacks", "low", "panics", result{Code: tool.CodeToolNotFound}},
		{"no such provider", "nobody", "echo", result{Code: tool.CodeToolNotFound}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, _, _ := newToolkit(t, quiver.WithProvider(low), quiver.WithOnlyProvider(tt.only))
			out, err := tk.Invoke(context.Background(), tt.tool, map[string]any{"text": "hi"})
			got := result{Provider: out.Provider, Code: tool.CodeOf(err)}
			if err == nil {
				got.Text = out.Content.Output.(echoOutput).Text
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLookup: Lookup answers with the tool a call of the name would run,
// following aliases and WithOnlyProvider as a call does.
func TestLookup(t *testing.T) {
	low := lowProvider{tools: []*tool.Tool{tool.Func("echo", "Echoes text, from below.",
		func(_ context.Context, _ tool.Context, in echoInput) (echoOutput, error) { return echoOutput{}, nil })}}
	tests := []struct {
		name, only, tool string
		wantLow          bool // the echo of the low provider
		wantCode         tool.Code
	}{
		{"the top one", "", "echo", false, ""},
		{"an alias", "", "say", false, ""},
		{"the shadowed one", "low", "echo", true, ""},
		{"an alias, from one provider", "low", "say", true, ""},
		{"a tool it lacks", "low", "read_file", false, tool.CodeToolNotFound},
		{"no such tool", "", "nothing", false, tool.CodeToolNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, _, _ := newToolkit(t, quiver.WithProvider(low), quiver.WithOnlyProvider(tt.only),
				quiver.WithAlias(provider.Alias{Name: "say", Target: "echo"}))
			got, err := tk.Lookup(context.Background(), tt.tool)
			if code := tool.CodeOf(err); code != tt.wantCode {
				t.Fatalf("Lookup(%q) error %v, want code %q", tt.tool, err, tt.wantCode)
			}
			if err != nil {
				return
			}
			if got.Name != "echo" || strings.HasSuffix(got.Description, "from below.") != tt.wantLow {
				t.Errorf("Lookup(%q) = %s %q, want the echo of the low provider: %v", tt.tool, got.Name, got.Description, tt.wantLow)
			}
		})
	}
}
