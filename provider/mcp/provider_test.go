package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/providertest"
	"github.com/quiverkit/quiver/tool"
)

// toolkit returns a toolkit serving the given providers (and no built-in
// tools) under a policy that allows everything.
func toolkit(t *testing.T, provs ...*Provider) *quiver.Toolkit {
	t.Helper()
	opts := []quiver.Option{quiver.WithRoot(t.TempDir()), quiver.WithPolicy(policy.AllowAll())}
	for _, p := range provs {
		opts = append(opts, quiver.WithProvider(p))
		t.Cleanup(func() { p.Close() })
	}
	tk, err := quiver.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

func newProvider(t *testing.T, cfg Config) *Provider {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct{ name, server, tool, want string }{
		{"naming: plain names are joined with two underscores", "github", "create_issue", "github__create_issue"},
		{"naming: dots, slashes and spaces become underscores", "my.server", "a.tool/with spaces", "my_server__a_tool_with_spaces"},
		{"naming: non-ASCII letters become underscores", "srv", "café", "srv__caf_"},
		{"naming: a long name is cut and keeps a hash of the original", "srv", long, "srv__" + long[:50] + "_e2f794a8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ToolName(tt.server, tt.tool)
			if got != tt.want {
				t.Errorf("ToolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
			}
			if !tool.ValidName(got) {
				t.Errorf("%q is not a valid tool name", got)
			}
		})
	}
	if ToolName("srv", long+"a") == ToolName("srv", long+"b") {
		t.Error("two long names that differ only at the end got the same name")
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"config: no name", Config{Command: "x"}, "name is required"},
		{"config: neither command nor url", Config{Name: "a"}, "exactly one of command and url"},
		{"config: both command and url", Config{Name: "a", Command: "x", URL: "http://127.0.0.1/"}, "exactly one of command and url"},
		{"config: a risk that is not low or high", Config{Name: "a", Command: "x", Risk: "medium"}, "risk must be low or high"},
		{"config: a bad tool pattern", Config{Name: "a", Command: "x", EnabledTools: []string{"[x"}}, "tool pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestListingKeepsSchemasWholeAndSkipsBadTools(t *testing.T) {
	t.Parallel()
	p := newProvider(t, testServer(t, "test", "tools"))
	t.Cleanup(func() { p.Close() })
	tools, err := p.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*tool.Tool{}
	var names []string
	for _, tl := range tools {
		byName[tl.Name] = tl
		names = append(names, tl.Name)
	}
	want := []string{"test__a_tool_with_spaces", "test__crash", "test__distance", "test__fail", "test__fetch_later", "test__grow", "test__hang", "test__image", "test__lines", "test__quiver-denied"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`stringly: input schema is not an object schema (type "string")`}, p.Skipped()); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	got, err := json.Marshal(byName["test__distance"].InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var gotM, wantM any
	json.Unmarshal(got, &gotM)
	json.Unmarshal([]byte(defsSchema), &wantM)
	if diff := cmp.Diff(wantM, gotM); diff != "" {
		t.Errorf("input schema not passed on whole (-want +got):\n%s", diff)
	}
	risks := map[string]tool.Risk{"test__distance": tool.RiskLow, "test__fail": tool.RiskHigh}
	for name, want := range risks {
		if got := byName[name].Risk; got != want {
			t.Errorf("%s: risk %s, want %s", name, got, want)
		}
	}
	if a := byName["test__fail"].Annotations; !a.Destructive || !a.OpenWorld || a.ReadOnly {
		t.Errorf("a tool without hints got %+v, want the specification's defaults (destructive, open world)", a)
	}
}

func TestEnabledAndDisabledTools(t *testing.T) {
	t.Parallel()
	cfg := testServer(t, "test", "tools")
	cfg.EnabledTools = []string{"d*", "fail", "image"}
	cfg.DisabledTools = []string{"fail"}
	cfg.Risk = tool.RiskHigh
	p := newProvider(t, cfg)
	t.Cleanup(func() { p.Close() })
	tools, err := p.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if tl.Risk != tool.RiskHigh {
			t.Errorf("%s: risk %s, want the configured high", tl.Name, tl.Risk)
		}
	}
	if diff := cmp.Diff([]string{"test__distance", "test__image"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

func TestCallsThroughThePipeline(t *testing.T) {
	t.Parallel()
	// The calls that answer get the test server's generous timeout, so a
	// loaded machine cannot turn them into timeouts; the one that never
	// answers gets a short one, below.
	tk := toolkit(t, newProvider(t, testServer(t, "test", "tools")))
	tests := []struct {
		name, tool string
		args       string
		code       tool.Code // "" for success
		text       string    // expected in the model's view or the error
	}{
		{"call: $ref arguments validate and run", "test__distance", `{"from":{"x":1,"y":2},"to":{"x":4,"y":3}}`, "", "4"},
		{"call: $ref arguments are validated by Quiver", "test__distance", `{"from":{"x":1},"to":{"x":4,"y":3}}`, tool.CodeInvalidArguments, "y"},
		{"call: a sanitized name reaches the original tool", "test__a_tool_with_spaces", `{}`, "", "odd"},
		{"call: an isError result is EXECUTION_FAILED with the server's text", "test__fail", `{}`, tool.CodeExecutionFailed, "disk on fire"},
		{"call: a Quiver server's error code is kept", "test__quiver-denied", `{}`, tool.CodeToolNotAllowed, "refused by policy"},
		{"call: images are kept", "test__image", `{}`, "", "[image image/png, 4 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tk.Invoke(t.Context(), tt.tool, json.RawMessage(tt.args))
			if tool.CodeOf(err) != tt.code {
				t.Fatalf("code %q (%v), want %q", tool.CodeOf(err), err, tt.code)
			}
			if !strings.Contains(out.Content.String(), tt.text) {
				t.Errorf("result %q does not contain %q", out.Content.String(), tt.text)
			}
		})
	}
	t.Run("call: a server that does not answer is a TIMEOUT", func(t *testing.T) {
		cfg := testServer(t, "test", "tools")
		cfg.Timeout = 500 * time.Millisecond
		_, err := toolkit(t, newProvider(t, cfg)).Invoke(t.Context(), "test__hang", json.RawMessage(`{}`))
		if tool.CodeOf(err) != tool.CodeTimeout || !strings.Contains(err.Error(), "did not answer") {
			t.Fatalf("got %v, want %s saying the server did not answer", err, tool.CodeTimeout)
		}
	})
	out, err := tk.Invoke(t.Context(), "test__distance", json.RawMessage(`{"from":{"x":0,"y":0},"to":{"x":2,"y":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := out.Content.Output.(json.RawMessage); string(got) != `{"distance":4}` {
		t.Errorf("typed output %s, want the structured content", got)
	}
	out, err = tk.Invoke(t.Context(), "test__lines", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if view := out.Content.String(); out.Content.OutputRef == "" || strings.Contains(view, "line 1500\n") || !strings.Contains(view, out.Content.OutputRef) {
		t.Errorf("a 3000-line answer came back with ref %q and a view of %d bytes; want it trimmed through the output cache", out.Content.OutputRef, len(view))
	}
}

func TestCrashedServerIsRestartedOnNextUse(t *testing.T) {
	t.Parallel()
	tk := toolkit(t, newProvider(t, testServer(t, "test", "tools")))
	if _, err := tk.Invoke(t.Context(), "test__image", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	// Let the connection age past the crash-loop window, so this crash is
	// one of a healthy server.
	time.Sleep(healthyAfter)
	_, err := tk.Invoke(t.Context(), "test__crash", json.RawMessage(`{}`))
	if tool.CodeOf(err) != tool.CodeExecutionFailed || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Fatalf("call that crashed the server: %v, want EXECUTION_FAILED naming its stderr", err)
	}
	out, err := tk.Invoke(t.Context(), "test__distance", json.RawMessage(`{"from":{"x":0,"y":0},"to":{"x":0,"y":1}}`))
	if err != nil || out.Content.String() != "1" {
		t.Fatalf("call after the crash: %q, %v; want the restarted server's answer", out.Content.String(), err)
	}
}

func TestListChangedRefreshesTheCatalogue(t *testing.T) {
	t.Parallel()
	tk := toolkit(t, newProvider(t, testServer(t, "test", "tools")))
	if _, err := tk.Invoke(t.Context(), "test__grown", json.RawMessage(`{}`)); tool.CodeOf(err) != tool.CodeToolNotFound {
		t.Fatalf("grown before growing: %v", err)
	}
	if _, err := tk.Invoke(t.Context(), "test__grow", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := tk.Invoke(t.Context(), "test__grown", json.RawMessage(`{}`))
		if err == nil {
			if out.Content.String() != "I grew" {
				t.Errorf("grown answered %q", out.Content.String())
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new tool did not appear after list-changed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestFailingServersAreReportedAndContained(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mode string
		timeout    time.Duration
		want       string
	}{
		{"bad server: exits at start, stderr is the reason", "exit", 5 * time.Second, "SECRET_API_KEY is not set"},
		{"bad server: answers garbage", "garbage", 5 * time.Second, "invalid character"},
		{"bad server: never answers", "hang", 300 * time.Millisecond, "no answer before the timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bad := testServer(t, "bad", tt.mode)
			bad.StartTimeout = tt.timeout
			badP := newProvider(t, bad)
			tk := toolkit(t, newProvider(t, testServer(t, "good", "tools")), badP)
			if _, err := tk.Invoke(t.Context(), "good__image", json.RawMessage(`{}`)); err != nil {
				t.Fatalf("the good server's tool failed beside a bad server: %v", err)
			}
			var st provider.Status
			for _, s := range tk.Registry().Status(t.Context()) {
				if s.ID == "mcp:bad" {
					st = s
				}
			}
			if st.Err == nil || !strings.Contains(st.Err.Error(), tt.want) || !strings.Contains(st.Err.Error(), "next try in") {
				t.Errorf("status of the bad server: %v, want its reason (%q) and when it is tried again", st.Err, tt.want)
			}
			start := time.Now()
			if _, err := badP.Tools(context.Background()); err == nil {
				t.Error("the bad server listed tools on the second try")
			}
			if d := time.Since(start); d > 100*time.Millisecond {
				t.Errorf("a second listing inside the pause took %s: the server was started again", d)
			}
		})
	}
}

func TestURLServerGetsConfiguredHeaders(t *testing.T) {
	t.Setenv("QUIVER_TEST_TOKEN", "tok-123")
	srv := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	addTestTools(srv)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-123" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(web.Close)
	tk := toolkit(t, newProvider(t, Config{Name: "web", URL: web.URL, Headers: map[string]string{"Authorization": "Bearer ${QUIVER_TEST_TOKEN}"}}))
	out, err := tk.Invoke(t.Context(), "web__image", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(out.Content.String(), "a pixel") {
		t.Fatalf("call over HTTP with the header: %q, %v", out.Content.String(), err)
	}

	denied := newProvider(t, Config{Name: "web", URL: web.URL, StartTimeout: 5 * time.Second})
	t.Cleanup(func() { denied.Close() })
	if _, err := denied.Tools(t.Context()); err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("without the header: %v, want the server's refusal as the reason", err)
	}
}

func TestExpandOnlyBracedVariables(t *testing.T) {
	t.Setenv("QUIVER_TEST_X", "value")
	tests := []struct{ in, want string }{
		{"Bearer ${QUIVER_TEST_X}", "Bearer value"},
		{"pa$$word $QUIVER_TEST_X", "pa$$word $QUIVER_TEST_X"},
		{"${QUIVER_TEST_UNSET_VAR}-x", "-x"},
		{"${unclosed", "${unclosed"},
	}
	for _, tt := range tests {
		if got := expand(tt.in); got != tt.want {
			t.Errorf("expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestServerSandbox: a stdio server runs confined to its workspace unless
// the operator opts it out.
func TestServerSandbox(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		noSandbox bool
		wantWrite bool
	}{
		{"confined by default", false, false},
		{"opted out", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testServer(t, "wrapped", "tools")
			outside := filepath.Join(t.TempDir(), "pid")
			cfg.Env["QUIVER_TEST_PID_FILE"] = outside
			cfg.NoSandbox = tt.noSandbox
			p := newProvider(t, cfg)
			_, err := p.Tools(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(outside)
			if wrote := statErr == nil; wrote != tt.wantWrite {
				t.Errorf("server wrote outside its workspace: %v, want %v", wrote, tt.wantWrite)
			}
		})
	}
}

// TestContract: the provider keeps the contract the registry relies on,
// against a real server (the go-sdk's, in this test binary) whose tools
// include an odd name, which the provider rewrites, and a schema that is
// not an object's, which it leaves out. Every clause starts its own server.
func TestContract(t *testing.T) {
	t.Parallel()
	providertest.Run(t, func(t *testing.T) provider.Provider {
		p := newProvider(t, testServer(t, "test", "tools"))
		t.Cleanup(func() { p.Close() })
		return p
	})
}
