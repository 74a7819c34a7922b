package github_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/internal/githubtest"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
	"github.com/quiverkit/quiver/tools"
	"github.com/quiverkit/quiver/workspace"
	"github.com/quiverkit/quiver/workspace/github"
	"github.com/quiverkit/quiver/workspace/workspacetest"
)

// fixtureFiles is workspacetest's fixture as the fake's file set.
func fixtureFiles() []githubtest.File {
	var files []githubtest.File
	for _, f := range workspacetest.Files() {
		gf := githubtest.File{Path: f.Path, Content: []byte(f.Content)}
		switch {
		case f.Mode&fs.ModeSymlink != 0:
			gf.Mode = githubtest.ModeSymlink
		case f.Mode.IsDir():
			gf.Mode, gf.Commit, gf.Content = githubtest.ModeSubmodule, f.Content, nil
		case f.Mode.Perm()&0o100 != 0:
			gf.Mode = githubtest.ModeExecutable
		}
		files = append(files, gf)
	}
	return files
}

// TestConformance: the GitHub backend answers every call of the
// workspace contract as the same files on disk do.
func TestConformance(t *testing.T) {
	srv := githubtest.New(t, githubtest.Options{})
	if _, err := srv.AddRepo(githubtest.Repo{Owner: "acme", Name: "app", Files: fixtureFiles(), Time: workspacetest.ModTime}); err != nil {
		t.Fatal(err)
	}
	b, err := github.Open(github.Config{Repo: "acme/app", Token: githubtest.Token, APIURL: srv.URL, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(b)
	defer ws.Close()
	workspacetest.Run(t, ws)
}

func grepCall(t *testing.T, ws *workspace.Workspace, args string) (*tools.GrepSearchOutput, error) {
	t.Helper()
	shared := tool.NewScope(nil, nil)
	defer shared.Close()
	shared.Provide(workspace.Key.ID, ws)
	res, err := tooltest.Call(context.Background(), tools.NewGrepSearch(tools.BuiltinGrep), shared, args)
	if err != nil {
		return nil, err
	}
	return res.Output.(*tools.GrepSearchOutput), nil
}

// TestGrepBound: grep_search over the repository fetches at most the
// search's bound of blobs and says it was cut; blobs fetched once are
// free the next time; a rate limit met on the way is the call's error,
// not a file left unread.
func TestGrepBound(t *testing.T) {
	e := setup(t, githubtest.Options{}, manyFiles(120))
	b, err := github.Open(github.Config{Repo: "acme/app", Token: githubtest.Token, APIURL: e.srv.URL, CacheDir: e.cache,
		Now: e.clock.Now, Sleep: e.clock.Sleep, SearchFetches: 50})
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(b)
	defer ws.Close()

	out, err := grepCall(t, ws, `{"pattern":"file","output_mode":"files","max_results":500}`)
	if err != nil {
		t.Fatal(err)
	}
	if !out.BudgetCut || out.TotalFiles > 50 || out.TotalFiles < 1 {
		t.Errorf("first search: budget_cut %v, %d files", out.BudgetCut, out.TotalFiles)
	}
	if n := e.srv.Count(githubtest.RouteBlob); n > 50 {
		t.Errorf("%d blob requests for a bound of 50", n)
	}
	for range 3 {
		if out, err = grepCall(t, ws, `{"pattern":"file","output_mode":"files","max_results":500}`); err != nil {
			t.Fatal(err)
		}
	}
	if out.BudgetCut || out.TotalFiles != 120 {
		t.Errorf("with the blobs cached: budget_cut %v, %d files", out.BudgetCut, out.TotalFiles)
	}

	fresh, err := github.Open(github.Config{Repo: "acme/app", Token: githubtest.Token, APIURL: e.srv.URL, CacheDir: e.cache,
		Now: e.clock.Now, Sleep: e.clock.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 10, Reset: e.clock.Now().Add(time.Hour)})
	_, err = grepCall(t, workspace.New(fresh), `{"pattern":"file","output_mode":"files"}`)
	if tool.CodeOf(err) != tool.CodeRateLimited {
		t.Errorf("a rate limit on the way: %v", err)
	}
}

// TestSearchCodeUsesCodeSearch: search_code on the default branch reads
// every file when one search's budget allows, and matches as on disk (auth
// inside authorize too); only on a tree too large for the budget does it
// ask GitHub's code search which files to read, and then finds what GitHub
// finds, whole words. Where code search fails, it reads the files.
func TestSearchCodeUsesCodeSearch(t *testing.T) {
	files := githubtest.Files("src/auth.ts", "export const auth = 1\n", "src/login.ts", "import { auth } from './auth'\n",
		"src/session.ts", "authorize(user)\n")
	for i := range 30 {
		files = append(files, githubtest.File{Path: fmt.Sprintf("pkg/f%02d.ts", i), Content: fmt.Appendf(nil, "export const x = %d\n", i)})
	}
	call := func(e *env, fetches int) string {
		t.Helper()
		b, err := github.Open(github.Config{Repo: "acme/app", Token: githubtest.Token, APIURL: e.srv.URL, CacheDir: e.cache,
			Now: e.clock.Now, Sleep: e.clock.Sleep, SearchFetches: fetches})
		if err != nil {
			t.Fatal(err)
		}
		shared := tool.NewScope(nil, nil)
		defer shared.Close()
		shared.Provide(workspace.Key.ID, workspace.New(b))
		res, err := tooltest.Call(context.Background(), tools.NewSearchCode(tools.BuiltinGrep), shared, `{"query":"auth","filePattern":"*.ts"}`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(res.Output)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}

	e := setup(t, githubtest.Options{}, files)
	whole := call(e, 0)
	if n, blobs := e.srv.Count(githubtest.RouteSearch), e.srv.Count(githubtest.RouteBlob); n != 0 || blobs != 33 {
		t.Errorf("within the budget: %d code searches, %d blobs read; want none and every file", n, blobs)
	}
	for _, want := range []string{"src/auth.ts", "src/login.ts", "src/session.ts"} {
		if !strings.Contains(whole, want) {
			t.Errorf("within the budget, %s is missing:\n%s", want, whole)
		}
	}

	e = setup(t, githubtest.Options{}, files)
	indexed := call(e, 10)
	if n, blobs := e.srv.Count(githubtest.RouteSearch), e.srv.Count(githubtest.RouteBlob); n != 1 || blobs != 2 {
		t.Errorf("over the budget: %d code searches, %d blobs read; want 1 and the 2 files it found", n, blobs)
	}
	if !strings.Contains(indexed, "src/login.ts") || strings.Contains(indexed, "src/session.ts") {
		t.Errorf("over the budget, the index's whole words (login.ts, not session.ts's authorize):\n%s", indexed)
	}

	// Code search failing on a tree over the budget: each search reads
	// the budget's worth, says it was cut, and the next goes further.
	e = setup(t, githubtest.Options{}, files)
	e.srv.Fail(githubtest.Failure{Route: githubtest.RouteSearch, Status: 422, Times: 100})
	b, err := github.Open(github.Config{Repo: "acme/app", Token: githubtest.Token, APIURL: e.srv.URL, CacheDir: e.cache,
		Now: e.clock.Now, Sleep: e.clock.Sleep, SearchFetches: 10})
	if err != nil {
		t.Fatal(err)
	}
	shared := tool.NewScope(nil, nil)
	defer shared.Close()
	shared.Provide(workspace.Key.ID, workspace.New(b))
	for i := 1; ; i++ {
		res, err := tooltest.Call(context.Background(), tools.NewSearchCode(tools.BuiltinGrep), shared, `{"query":"auth","filePattern":"*.ts"}`)
		if te := tool.AsError(err); err != nil && (te.Code != tool.CodeBudgetExceeded || te.Details["matches"] == nil) {
			t.Fatalf("search %d over the budget: %v", i, err)
		}
		if n := e.srv.Count(githubtest.RouteBlob); n > 10*i {
			t.Fatalf("search %d: %d blobs read, over %d searches' budget", i, n, i)
		}
		if err == nil {
			if out, _ := json.Marshal(res.Output); i != 4 || !strings.Contains(string(out), "src/session.ts") {
				t.Errorf("search %d answered %s; want the fourth (33 files, 10 a search), with every file", i, out)
			}
			if n := e.srv.Count(githubtest.RouteSearch); n != 3 {
				t.Errorf("%d code searches; want one for each search over the budget, 3", n)
			}
			break
		}
		if i > 4 {
			t.Fatal("the searches never read every file")
		}
	}
}
