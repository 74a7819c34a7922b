package tools_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// TestWebToolsThroughToolkit runs the web tools the way a host does, with
// the pipeline's policy in front: a web_fetch(domain:...) rule refuses the
// call before anything is sent, and the configuration reaches both tools
// through the toolkit's override.
func TestWebToolsThroughToolkit(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/search" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"results":[{"title":"Hit","url":"https://example.com/%s","content":"snippet"}]}`, r.URL.Query().Get("q"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<h2>Served</h2>")
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]

	pol, err := policy.New(policy.Config{Default: policy.Allow, Deny: []string{"web_fetch(domain:localhost)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	web := tools.WebConfig{AllowPrivate: true, SearchURL: srv.URL + "/search"}
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithPolicy(pol),
		quiver.Override(tools.WebConfigKey, func(context.Context) (tools.WebConfig, error) { return web, nil }))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	ctx := context.Background()

	_, err = tk.Invoke(ctx, "web_fetch", map[string]any{"url": "http://localhost" + port + "/"})
	wantCode(t, err, tool.CodeToolNotAllowed, "web_fetch(domain:localhost)")
	if n := hits.Load(); n != 0 {
		t.Fatalf("a denied fetch reached the server (%d requests)", n)
	}

	out, err := tk.Invoke(ctx, "web_fetch", map[string]any{"url": srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if view := out.Content.String(); !strings.HasSuffix(view, "\n\n## Served") {
		t.Errorf("web_fetch's view:\n%s", view)
	}

	found, err := quiver.Call(ctx, tk, tools.WebSearch, tools.WebSearchInput{Query: "quiver"})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Results) != 1 || found.Results[0].URL != "https://example.com/quiver" {
		t.Errorf("web_search: %+v", found.Results)
	}
}
