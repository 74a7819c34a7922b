package githubtest_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/githubtest"
)

const submodule = "0123456789abcdef0123456789abcdef01234567"

func fixture(t *testing.T, opts githubtest.Options) (*githubtest.Server, string) {
	t.Helper()
	s := githubtest.New(t, opts)
	files := append(githubtest.Files(
		"README.md", "# demo\n",
		"src/auth/login.tsx", "export function LoginForm() {\n  return auth()\n}\n",
		"src/main.go", "package main\n",
	),
		githubtest.File{Path: "bin/run", Content: []byte("#!/bin/sh\n"), Mode: githubtest.ModeExecutable},
		githubtest.File{Path: "link", Content: []byte("README.md"), Mode: githubtest.ModeSymlink},
		githubtest.File{Path: "vendor/lib", Mode: githubtest.ModeSubmodule, Commit: submodule},
	)
	sha, err := s.AddRepo(githubtest.Repo{Owner: "acme", Name: "app", Files: files, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	return s, sha
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func get(t *testing.T, s *githubtest.Server, path string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest("GET", s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+githubtest.Token)
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

func decode[T any](t *testing.T, a answer) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatalf("%s: %v", a.body, err)
	}
	return v
}

type treeItem struct {
	Path, Mode, Type, SHA string
	Size                  int
}

type tree struct {
	SHA       string
	Tree      []treeItem
	Truncated bool
}

// TestObjectIDsAreGits: a repository read from a git repository is served
// with git's ids, and one built from the same files gets the same ones.
func TestObjectIDsAreGits(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@quiver.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@quiver.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	for name, content := range map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n", "dir/sub/c": "", "dir.x": "x"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.Symlink("a.txt", filepath.Join(dir, "l"))
	git("add", "-A")
	git("update-index", "--add", "--cacheinfo", "160000,"+submodule+",mod")
	git("commit", "-q", "-m", "one")
	want := git("rev-parse", "HEAD^{tree}")

	files, err := githubtest.FromGit(dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	s := githubtest.New(t, githubtest.Options{})
	if _, err := s.AddRepo(githubtest.Repo{Owner: "o", Name: "r", Files: files}); err != nil {
		t.Fatal(err)
	}
	got := decode[tree](t, get(t, s, "/repos/o/r/git/trees/main?recursive=1"))
	if got.SHA != want {
		t.Errorf("tree sha %s, git's %s", got.SHA, want)
	}
	modes := map[string]string{}
	for _, it := range got.Tree {
		modes[it.Path] = it.Mode + " " + it.Type
	}
	wantModes := map[string]string{"a.txt": "100644 blob", "dir": "040000 tree", "dir/b.txt": "100644 blob", "dir/sub": "040000 tree",
		"dir/sub/c": "100644 blob", "dir.x": "100644 blob", "run.sh": "100755 blob", "l": "120000 blob", "mod": "160000 commit"}
	if d := cmp.Diff(wantModes, modes); d != "" {
		t.Errorf("modes (-want +got):\n%s", d)
	}
}

func TestRoutes(t *testing.T) {
	s, head := fixture(t, githubtest.Options{})
	repo := decode[struct {
		DefaultBranch string `json:"default_branch"`
		FullName      string `json:"full_name"`
	}](t, get(t, s, "/repos/acme/app"))
	if repo.DefaultBranch != "main" || repo.FullName != "acme/app" {
		t.Errorf("repository: %+v", repo)
	}
	ref := decode[struct{ Object struct{ SHA string } }](t, get(t, s, "/repos/acme/app/git/ref/heads/main"))
	if ref.Object.SHA != head {
		t.Errorf("ref: %s, want %s", ref.Object.SHA, head)
	}
	if a := get(t, s, "/repos/acme/app/commits/main", "Accept", "application/vnd.github.sha"); string(a.body) != head {
		t.Errorf("commit sha: %q", a.body)
	}
	top := decode[tree](t, get(t, s, "/repos/acme/app/git/trees/"+head))
	var names []string
	for _, it := range top.Tree {
		names = append(names, it.Path+" "+it.Type)
	}
	if d := cmp.Diff([]string{"README.md blob", "bin tree", "link blob", "src tree", "vendor tree"}, names); d != "" {
		t.Errorf("top tree (-want +got):\n%s", d)
	}
	var login treeItem
	for _, it := range decode[tree](t, get(t, s, "/repos/acme/app/git/trees/main?recursive=1")).Tree {
		if it.Path == "src/auth/login.tsx" {
			login = it
		}
	}
	blob := decode[struct{ Content, Encoding string }](t, get(t, s, "/repos/acme/app/git/blobs/"+login.SHA))
	data, err := base64.StdEncoding.DecodeString(blob.Content)
	if err != nil || !strings.HasPrefix(string(data), "export function LoginForm") || blob.Encoding != "base64" {
		t.Errorf("blob: %q, %v", data, err)
	}
	raw := get(t, s, "/repos/acme/app/git/blobs/"+login.SHA, "Accept", "application/vnd.github.raw+json")
	if !strings.HasPrefix(string(raw.body), "export function LoginForm") || raw.header.Get("Content-Type") != "application/vnd.github.raw" {
		t.Errorf("raw blob: %s %q", raw.header.Get("Content-Type"), raw.body)
	}
	// A symlink to a file in the repository answers the file, as GitHub's
	// contents API does; one pointing nowhere answers itself.
	link := decode[map[string]any](t, get(t, s, "/repos/acme/app/contents/link"))
	if link["type"] != "file" || link["path"] != "README.md" {
		t.Errorf("contents of a symlink to README.md: %v", link)
	}
	if _, err := s.Push("acme/app", "links", []githubtest.File{{Path: "dangling", Content: []byte("nowhere"), Mode: githubtest.ModeSymlink}}); err != nil {
		t.Fatal(err)
	}
	dangling := decode[map[string]any](t, get(t, s, "/repos/acme/app/contents/dangling?ref=links"))
	if dangling["type"] != "symlink" || dangling["target"] != "nowhere" {
		t.Errorf("contents of a dangling symlink: %v", dangling)
	}
	sub := decode[map[string]any](t, get(t, s, "/repos/acme/app/contents/vendor/lib"))
	if sub["type"] != "submodule" || sub["sha"] != submodule {
		t.Errorf("submodule contents: %v", sub)
	}
	dir := decode[[]map[string]any](t, get(t, s, "/repos/acme/app/contents/src?ref=main"))
	if len(dir) != 2 || dir[0]["type"] != "dir" || dir[1]["path"] != "src/main.go" {
		t.Errorf("directory contents: %v", dir)
	}
}

func TestErrors(t *testing.T) {
	s, _ := fixture(t, githubtest.Options{})
	for _, tc := range []struct {
		name, path string
		header     []string
		status     int
		message    string
	}{
		{"a private repository without a token is not found", "/repos/acme/app", []string{"Authorization", ""}, 404, "Not Found"},
		{"a token it does not know", "/repos/acme/app", []string{"Authorization", "Bearer nope"}, 401, "Bad credentials"},
		{"no such repository", "/repos/acme/none", nil, 404, "Not Found"},
		{"no such path", "/repos/acme/app/contents/nope", nil, 404, "Not Found"},
		{"no such blob", "/repos/acme/app/git/blobs/0000000000000000000000000000000000000000", nil, 404, "Not Found"},
		{"no such branch", "/repos/acme/app/git/trees/nope", nil, 404, "Not Found"},
		{"search needs a token", "/search/code?q=auth+repo:acme/app", []string{"Authorization", ""}, 401, "Requires authentication"},
		{"search needs a repository", "/search/code?q=auth", nil, 422, "Validation Failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := get(t, s, tc.path, tc.header...)
			msg := decode[struct{ Message string }](t, a).Message
			if a.status != tc.status || msg != tc.message {
				t.Errorf("%d %q, want %d %q", a.status, msg, tc.status, tc.message)
			}
		})
	}
}

func TestConditionalRequests(t *testing.T) {
	s, _ := fixture(t, githubtest.Options{})
	first := get(t, s, "/repos/acme/app/git/ref/heads/main")
	etag := first.header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	again := get(t, s, "/repos/acme/app/git/ref/heads/main", "If-None-Match", etag)
	if again.status != http.StatusNotModified || len(again.body) != 0 {
		t.Errorf("with a matching If-None-Match: %d %q", again.status, again.body)
	}
	if first.header.Get("X-RateLimit-Remaining") != again.header.Get("X-RateLimit-Remaining") {
		t.Errorf("the 304 spent a request: remaining %s then %s", first.header.Get("X-RateLimit-Remaining"), again.header.Get("X-RateLimit-Remaining"))
	}
	if _, err := s.Push("acme/app", "main", githubtest.Files("new.txt", "new\n")); err != nil {
		t.Fatal(err)
	}
	if moved := get(t, s, "/repos/acme/app/git/ref/heads/main", "If-None-Match", etag); moved.status != http.StatusOK {
		t.Errorf("after a push: %d", moved.status)
	}
	if d := cmp.Diff(map[string]int{"ref 200": 2, "ref 304": 1}, s.Counts()); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
}

func TestTruncatedTrees(t *testing.T) {
	s, head := fixture(t, githubtest.Options{TreeLimit: 3, DirLimit: 4})
	rec := decode[tree](t, get(t, s, "/repos/acme/app/git/trees/main?recursive=1"))
	if !rec.Truncated || len(rec.Tree) != 3 {
		t.Errorf("recursive: truncated %v with %d entries", rec.Truncated, len(rec.Tree))
	}
	top := decode[tree](t, get(t, s, "/repos/acme/app/git/trees/"+head))
	if !top.Truncated || len(top.Tree) != 4 {
		t.Errorf("one directory of 5: truncated %v with %d entries", top.Truncated, len(top.Tree))
	}
}

func TestRateLimits(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s, _ := fixture(t, githubtest.Options{Now: func() time.Time { return now }})
	reset := now.Add(10 * time.Minute)
	s.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 1, Reset: reset})
	if a := get(t, s, "/repos/acme/app"); a.status != 200 || a.header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("last request: %d, remaining %s", a.status, a.header.Get("X-RateLimit-Remaining"))
	}
	over := get(t, s, "/repos/acme/app")
	if over.status != http.StatusForbidden || over.header.Get("X-RateLimit-Reset") != "1800000600" || over.header.Get("X-RateLimit-Resource") != "core" {
		t.Errorf("over the limit: %d, reset %s", over.status, over.header.Get("X-RateLimit-Reset"))
	}
	if a := get(t, s, "/search/code?q=auth+repo:acme/app"); a.status != 200 {
		t.Errorf("search has a limit of its own: %d", a.status)
	}
	now = reset
	if a := get(t, s, "/repos/acme/app"); a.status != 200 || a.header.Get("X-RateLimit-Remaining") != "4999" {
		t.Errorf("after the reset: %d, remaining %s", a.status, a.header.Get("X-RateLimit-Remaining"))
	}

	s.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 0, Reset: now.Add(time.Minute), Status: 429})
	if a := get(t, s, "/repos/acme/app"); a.status != http.StatusTooManyRequests {
		t.Errorf("a 429 limit: %d", a.status)
	}
	s.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 10, Reset: now.Add(time.Minute)})
	s.Fail(githubtest.Failure{Route: githubtest.RouteBlob, Times: 2, RetryAfter: 7, Secondary: true})
	if a := get(t, s, "/repos/acme/app"); a.status != 200 {
		t.Errorf("another route: %d", a.status)
	}
	for range 2 {
		a := get(t, s, "/repos/acme/app/git/blobs/x")
		doc := decode[struct {
			DocumentationURL string `json:"documentation_url"`
		}](t, a).DocumentationURL
		if a.status != 403 || a.header.Get("Retry-After") != "7" || !strings.HasSuffix(doc, "secondary-rate-limits") {
			t.Errorf("secondary limit: %d, Retry-After %q, %s", a.status, a.header.Get("Retry-After"), doc)
		}
	}
	if a := get(t, s, "/repos/acme/app/git/blobs/x"); a.status != 404 {
		t.Errorf("after the failures: %d", a.status)
	}
}

func TestSearchPagination(t *testing.T) {
	s := githubtest.New(t, githubtest.Options{})
	var files []githubtest.File
	for i := range 45 {
		files = append(files, githubtest.File{Path: "pkg/f" + string(rune('a'+i/26)) + string(rune('a'+i%26)) + ".ts", Content: []byte("const Auth = 1\n")})
	}
	files = append(files, githubtest.Files("other.go", "auth\n", "big.ts", strings.Repeat("auth ", 100_000))...)
	if _, err := s.AddRepo(githubtest.Repo{Owner: "acme", Name: "app", Files: files}); err != nil {
		t.Fatal(err)
	}
	type result struct {
		TotalCount int `json:"total_count"`
		Items      []struct {
			Path        string
			TextMatches []struct{ Fragment string } `json:"text_matches"`
		}
	}
	next := "/search/code?q=auth+repo:acme/app+extension:ts&per_page=20"
	var paths []string
	for pages := 0; next != ""; pages++ {
		if pages > 3 {
			t.Fatal("pagination does not end")
		}
		a := get(t, s, next, "Accept", "application/vnd.github.text-match+json")
		r := decode[result](t, a)
		if r.TotalCount != 45 {
			t.Errorf("total_count %d, want 45 (the big file is not indexed)", r.TotalCount)
		}
		for _, it := range r.Items {
			paths = append(paths, it.Path)
			if len(it.TextMatches) != 1 || it.TextMatches[0].Fragment != "const Auth = 1" {
				t.Errorf("%s: text matches %+v", it.Path, it.TextMatches)
			}
		}
		next = ""
		for l := range strings.SplitSeq(a.header.Get("Link"), ", ") {
			if u, ok := strings.CutSuffix(l, `>; rel="next"`); ok {
				next = strings.TrimPrefix(strings.TrimPrefix(u, "<"), s.URL)
			}
		}
	}
	if len(paths) != 45 || paths[0] != "pkg/faa.ts" || paths[44] != "pkg/fbs.ts" {
		t.Errorf("%d paths: %v", len(paths), paths)
	}
}

// TestSearchMatchesWords: code search finds whole words, case-insensitively,
// as GitHub's does: a term inside a longer word, or across punctuation,
// does not match; a quoted phrase matches its words in a row; path: and
// filename: narrow the files.
func TestSearchMatchesWords(t *testing.T) {
	s := githubtest.New(t, githubtest.Options{})
	if _, err := s.AddRepo(githubtest.Repo{Owner: "acme", Name: "app", Files: githubtest.Files(
		"a/auth.go", "x := auth.Session()\n",
		"a/authorize.go", "func Authorize() {}\n",
		"b/oauth.go", "var oauth2 = 1\n",
		"b/user_auth.go", "var user_auth = NewAuth(ctx)\n",
		"c/phrase.txt", "the login form\nform login\n",
		"root.md", "AUTH at the root\n",
	)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"auth", []string{"a/auth.go", "root.md"}},
		{"AUTH", []string{"a/auth.go", "root.md"}},
		{"authorize", []string{"a/authorize.go"}},
		{"user_auth", []string{"b/user_auth.go"}},
		{"oauth", nil},
		{"session auth", []string{"a/auth.go"}},
		{`"login form"`, []string{"c/phrase.txt"}},
		{`"form login" the`, []string{"c/phrase.txt"}},
		{`"form the"`, nil},
		{"auth path:a", []string{"a/auth.go"}},
		{"auth path:/", []string{"root.md"}},
		{"auth filename:root.md", []string{"root.md"}},
	} {
		a := get(t, s, "/search/code?q="+url.QueryEscape(tc.q+" repo:acme/app"), "Accept", "application/vnd.github.text-match+json")
		r := decode[struct {
			Items []struct {
				Path        string
				TextMatches []struct {
					Fragment string
					Matches  []struct {
						Text    string
						Indices []int
					}
				} `json:"text_matches"`
			}
		}](t, a)
		var got []string
		for _, it := range r.Items {
			got = append(got, it.Path)
			m := it.TextMatches[0].Matches[0]
			if frag := it.TextMatches[0].Fragment; frag[m.Indices[0]:m.Indices[1]] != m.Text {
				t.Errorf("%s, %s: text match %q at %v of %q", tc.q, it.Path, m.Text, m.Indices, frag)
			}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.q, d)
		}
	}
}
