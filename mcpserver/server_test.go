package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

type echoOut struct {
	Text   string `json:"text"`
	Length int    `json:"length"`
}

type noteIn struct {
	Note string `json:"note"`
}

// fixture is a toolkit with a few host tools and the policy the tests need:
// echo (read-only, typed), note (high risk, asked about), secret (denied),
// slow (waits for cancellation), boom (panics).
type fixture struct {
	tk        *quiver.Toolkit
	cancelled chan error // what slow saw when its context ended
	started   chan struct{}
	notes     []string
	mu        sync.Mutex
}

func newFixture(t *testing.T, extra ...quiver.Option) *fixture {
	t.Helper()
	f := &fixture{cancelled: make(chan error, 10), started: make(chan struct{}, 10)}
	echo := tool.Func("echo", "Echoes text.", func(_ context.Context, _ tool.Context, in echoIn) (echoOut, error) {
		return echoOut{Text: in.Text, Length: len(in.Text)}, nil
	}, tool.ReadOnly())
	note := tool.Func("note", "Keeps a note.", func(_ context.Context, _ tool.Context, in noteIn) (string, error) {
		f.mu.Lock()
		f.notes = append(f.notes, in.Note)
		f.mu.Unlock()
		return "noted", nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: false}))
	secret := tool.Func("secret", "Never offered.", func(context.Context, tool.Context, struct{}) (string, error) {
		return "leaked", nil
	}, tool.ReadOnly())
	slow := tool.Func("slow", "Waits until cancelled.", func(ctx context.Context, _ tool.Context, _ struct{}) (string, error) {
		f.started <- struct{}{}
		select {
		case <-ctx.Done():
			f.cancelled <- context.Cause(ctx)
			return "", ctx.Err()
		case <-time.After(30 * time.Second):
			return "not cancelled", nil
		}
	}, tool.ReadOnly())
	nap := tool.Func("nap", "Sleeps a little.", func(ctx context.Context, _ tool.Context, _ struct{}) (string, error) {
		f.started <- struct{}{}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(300 * time.Millisecond):
			return "rested", nil
		}
	}, tool.ReadOnly())
	boom := tool.Func("boom", "Panics.", func(context.Context, tool.Context, struct{}) (string, error) {
		panic("boom")
	}, tool.ReadOnly())
	p, err := policy.New(policy.Config{Deny: []string{"secret"}, Ask: []string{"note"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	opts := append([]quiver.Option{quiver.WithRoot(t.TempDir()),
		quiver.WithTools(echo, note, secret, slow, nap, boom), quiver.WithPolicy(p),
		quiver.WithApprover(approve.Elicit{})}, extra...)
	tk, err := quiver.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	f.tk = tk
	return f
}

// connect serves srv over in-memory transports to a real go-sdk client.
func connect(t *testing.T, srv *mcpserver.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := t.Context()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newServer(t *testing.T, f *fixture, opts mcpserver.Options) *mcpserver.Server {
	t.Helper()
	srv, err := mcpserver.New(t.Context(), f.tk, opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func TestListShowsAllowedToolsWithSchemasAndHints(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newServer(t, f, mcpserver.Options{}), nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct {
		ReadOnly, Destructive, Idempotent, OpenWorld bool
		Output                                       bool
	}
	got := map[string]hints{}
	for _, tl := range res.Tools {
		a := tl.Annotations
		got[tl.Name] = hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint, tl.OutputSchema != nil}
		if m, ok := tl.InputSchema.(map[string]any); !ok || m["type"] != "object" {
			t.Errorf("%s: input schema %v is not an object schema", tl.Name, tl.InputSchema)
		}
	}
	want := map[string]hints{
		"echo": {ReadOnly: true, Idempotent: true, Output: true},
		"note": {Destructive: true}, // high risk and not read-only: announced destructive
		"slow": {ReadOnly: true, Idempotent: true},
		"boom": {ReadOnly: true, Idempotent: true},
		"nap":  {ReadOnly: true, Idempotent: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
}

func TestProtocolVersionIsNegotiatedDown(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newServer(t, f, mcpserver.Options{}), nil)
	if v := cs.InitializeResult().ProtocolVersion; v != mcpserver.ProtocolVersions[0] {
		t.Errorf("negotiated %q, want %q", v, mcpserver.ProtocolVersions[0])
	}
}

// callJSON calls name with raw arguments and returns the result as JSON
// decoded into a map, which is what any client sees.
func callJSON(t *testing.T, cs *mcp.ClientSession, name string, args any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCallReturnsTextAndStructuredContent(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newServer(t, f, mcpserver.Options{}), nil)
	got := callJSON(t, cs, "echo", map[string]any{"text": "héllo"})
	want := map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": `{"text":"héllo","length":6}`}},
		"structuredContent": map[string]any{"text": "héllo", "length": float64(6)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestErrorsAreToolResultsCarryingTheCode(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newServer(t, f, mcpserver.Options{}), nil)
	tests := []struct {
		name, tool string
		args       any
		code       tool.Code
		structured bool // the error is also structured content (no output schema)
	}{
		{"bad input: wrong shape of a field", "echo", map[string]any{"text": 5}, tool.CodeInvalidArguments, false},
		{"bad input: unknown field", "echo", map[string]any{"text": "a", "extra": 1}, tool.CodeInvalidArguments, false},
		{"bad input: arguments are an array", "slow", json.RawMessage(`[1,2]`), tool.CodeInvalidToolArgumentsType, true},
		{"bad input: arguments are a string", "slow", json.RawMessage(`"x"`), tool.CodeInvalidToolArgumentsType, true},
		{"policy: a tool denied outright is refused, not unknown", "secret", map[string]any{}, tool.CodeToolNotAllowed, true},
		{"approval: a client without elicitation gets the deny fallback", "note", map[string]any{"note": "n"}, tool.CodeApprovalDenied, true},
		{"panic: a panicking tool is INTERNAL and the session survives", "boom", map[string]any{}, tool.CodeInternal, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := callJSON(t, cs, tt.tool, tt.args)
			if got["isError"] != true {
				t.Fatalf("isError = %v, want true; result %v", got["isError"], got)
			}
			text := got["content"].([]any)[0].(map[string]any)["text"].(string)
			prefix := "Error executing tool " + tt.tool + ": " + string(tt.code) + ": "
			if !strings.HasPrefix(text, prefix) {
				t.Errorf("text %q does not start with %q", text, prefix)
			}
			meta, _ := got["_meta"].(map[string]any)[mcpserver.MetaError].(map[string]any)
			if meta["code"] != string(tt.code) {
				t.Errorf("_meta[%s] = %v, want code %s", mcpserver.MetaError, meta, tt.code)
			}
			sc, has := got["structuredContent"].(map[string]any)
			if has != tt.structured {
				t.Fatalf("structured content present = %v, want %v (%v)", has, tt.structured, got["structuredContent"])
			}
			if has && sc["error"].(map[string]any)["code"] != string(tt.code) {
				t.Errorf("structured error %v, want code %s", sc, tt.code)
			}
		})
	}
	if len(f.notes) != 0 {
		t.Errorf("a refused call ran: notes %v", f.notes)
	}
}

// TestMisspelledPathIsRefusedBeforeTheAsk: write_file {"path":"new.txt/"}
// names no file (the kernel refuses it), so it is INVALID_ARGUMENTS with the
// field in the message and in details, before anyone is asked: under the
// default policy, a write asks, and a client without elicitation gets
// APPROVAL_DENIED for a well-spelled one. Nothing is written.
func TestMisspelledPathIsRefusedBeforeTheAsk(t *testing.T) {
	dir := t.TempDir()
	p, err := policy.New(policy.Config{}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(p), quiver.WithApprover(approve.Elicit{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	cs := connect(t, newServer(t, &fixture{tk: tk}, mcpserver.Options{}), nil)
	for path, want := range map[string]map[string]any{
		"new.txt/": {"code": string(tool.CodeInvalidArguments), "field": "path"},
		"new.txt":  {"code": string(tool.CodeApprovalDenied), "field": nil},
	} {
		got := callJSON(t, cs, "write_file", map[string]any{"path": path, "content": "x"})
		info, _ := got["_meta"].(map[string]any)[mcpserver.MetaError].(map[string]any)
		details, _ := info["details"].(map[string]any)
		if diff := cmp.Diff(want, map[string]any{"code": info["code"], "field": details["field"]}); diff != "" {
			t.Errorf("write_file %q (-want +got):\n%s\n%v", path, diff, info)
		}
		if msg, _ := info["message"].(string); want["field"] != nil && !strings.Contains(msg, `field "path"`) {
			t.Errorf("write_file %q: the message does not name the field: %s", path, msg)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the workspace is not empty: %v %v", entries, err)
	}
}

func TestUnknownToolIsAProtocolError(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newServer(t, f, mcpserver.Options{}), nil)
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "TOOL_NOT_FOUND") {
		t.Fatalf("err = %v, want a protocol error naming TOOL_NOT_FOUND", err)
	}
}

func TestAskGoesToTheClientsUser(t *testing.T) {
	for _, action := range []string{"accept", "decline"} {
		t.Run("elicitation: "+action, func(t *testing.T) {
			f := newFixture(t)
			var asked string
			cs := connect(t, newServer(t, f, mcpserver.Options{}), &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = req.Params.Message
					return &mcp.ElicitResult{Action: action}, nil
				}})
			got := callJSON(t, cs, "note", map[string]any{"note": "remember"})
			if !strings.Contains(asked, "note") || !strings.Contains(asked, "remember") {
				t.Errorf("the user was asked %q, want the tool and its arguments shown", asked)
			}
			ran := len(f.notes) == 1
			if ran != (action == "accept") || (got["isError"] == true) == (action == "accept") {
				t.Errorf("action %s: ran = %v, result %v", action, ran, got)
			}
		})
	}
}

// changing is a provider whose catalogue changes at run time, as an MCP
// server's does.
type changing struct {
	mu         sync.Mutex
	tools      []*tool.Tool
	invalidate func()
}

func (c *changing) ID() string    { return "changing" }
func (c *changing) Priority() int { return 100 }
func (c *changing) Tools(context.Context) ([]*tool.Tool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools, nil
}
func (c *changing) SetInvalidate(f func()) { c.invalidate = f }
func (c *changing) set(tools ...*tool.Tool) {
	c.mu.Lock()
	c.tools = tools
	c.mu.Unlock()
	c.invalidate()
}

func TestRefreshFollowsTheCatalogueAndNotifiesClients(t *testing.T) {
	extra := tool.Func("extra", "Comes and goes.", func(context.Context, tool.Context, struct{}) (string, error) {
		return "here", nil
	}, tool.ReadOnly())
	prov := &changing{}
	f := newFixture(t, quiver.WithProvider(prov))
	srv := newServer(t, f, mcpserver.Options{})
	changed := make(chan struct{}, 10)
	cs := connect(t, srv, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	names := func() []string {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	expectNotice := func(want bool) {
		t.Helper()
		select {
		case <-changed:
			if !want {
				t.Fatal("list-changed sent though nothing changed")
			}
		case <-time.After(300 * time.Millisecond):
			if want {
				t.Fatal("no list-changed notification after the catalogue changed")
			}
		}
	}

	if err := srv.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	expectNotice(false)

	prov.set(extra)
	if err := srv.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	expectNotice(true)
	if diff := cmp.Diff([]string{"boom", "echo", "extra", "nap", "note", "slow"}, names()); diff != "" {
		t.Errorf("listing after the tool came (-want +got):\n%s", diff)
	}

	prov.set()
	// tools/list refreshes by itself, without Refresh being called.
	if diff := cmp.Diff([]string{"boom", "echo", "nap", "note", "slow"}, names()); diff != "" {
		t.Errorf("listing after the tool went (-want +got):\n%s", diff)
	}
	expectNotice(true)
}

func TestClientCancellationCancelsTheCall(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newServer(t, f, mcpserver.Options{}), nil)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		errc <- err
	}()
	<-f.started
	cancel()
	select {
	case <-f.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool's context was not cancelled after the client cancelled")
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("client got %v, want context.Canceled", err)
	}
}

// bigOut is a long output that renders as plain lines.
type bigOut struct{ Lines int }

func (b bigOut) Render() tool.Result {
	var s strings.Builder
	for i := 1; i <= b.Lines; i++ {
		fmt.Fprintf(&s, "line %d of the big output\n", i)
	}
	return tool.Text(s.String())
}

func TestOutputCacheRefsServeLaterCallsOfAnySession(t *testing.T) {
	big := tool.Func("big", "Prints many lines.", func(context.Context, tool.Context, struct{}) (bigOut, error) {
		return bigOut{Lines: 3000}, nil
	}, tool.ReadOnly())
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithTools(big), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	srv, err := mcpserver.New(t.Context(), tk, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := callJSON(t, connect(t, srv, nil), "big", map[string]any{})
	ref, _ := first["_meta"].(map[string]any)[mcpserver.MetaOutputRef].(string)
	text := first["content"].([]any)[0].(map[string]any)["text"].(string)
	if ref == "" || !strings.Contains(text, "ref="+ref) || strings.Contains(text, "line 1500 of") {
		t.Fatalf("a 3000-line output came back with ref %q and text of %d bytes; want a trimmed view naming the ref", ref, len(text))
	}
	// A later call, in another session, reads the lines the view left out.
	later := callJSON(t, connect(t, srv, nil), "tool_output_cache", map[string]any{"ref_id": ref, "offset": 1500, "limit": 2})
	got := later["content"].([]any)[0].(map[string]any)["text"].(string)
	if later["isError"] == true || !strings.Contains(got, "line 1500 of the big output") || !strings.Contains(got, "line 1501 of") {
		t.Errorf("tool_output_cache %s: %v", ref, later)
	}
}
