package config

import (
	"strings"
	"testing"
)

// TestWorkspaceBackend: the backend keys are checked where the file is
// read, each refusal naming its key.
func TestWorkspaceBackend(t *testing.T) {
	for _, c := range []struct {
		doc, backend, err string
	}{
		{doc: ``, backend: "local"},
		{doc: `backend = "local"`, backend: "local"},
		{doc: `ref = "origin/feature"`, backend: "git"},
		{doc: "backend = \"git\"\nref = \"v1.2~3\"", backend: "git"},
		{doc: "backend = \"github\"\nrepo = \"octo/app\"", backend: "github"},
		{doc: "backend = \"github\"\nrepo = \"octo/app.go\"\nref = \"main\"\ntoken_env = \"GH_TOKEN\"\napi_url = \"https://ghe.example/api/v3/\"", backend: "github"},
		{doc: "backend = \"github\"\nrepo = \"octo/app\"\napi_url = \"http://127.0.0.1:8080/\"", backend: "github"},
		{doc: `backend = "svn"`, err: "workspace.backend"},
		{doc: `backend = "git"`, err: "workspace.ref"},
		{doc: `ref = "--output=/tmp/x"`, err: "workspace.ref"},
		{doc: `ref = "main..feature"`, err: "workspace.ref"},
		{doc: `ref = "feature:secret.txt"`, err: "workspace.ref"},
		{doc: `ref = "a b"`, err: "workspace.ref"},
		{doc: "backend = \"local\"\nref = \"main\"", err: "workspace.ref"},
		{doc: "ref = \"main\"\nrepo = \"octo/app\"", err: "workspace.repo"},
		{doc: `repo = "octo/app"`, err: "workspace.repo"},
		{doc: `backend = "github"`, err: "workspace.repo"},
		{doc: "backend = \"github\"\nrepo = \"octo\"", err: "workspace.repo"},
		{doc: "backend = \"github\"\nrepo = \"octo/..\"", err: "workspace.repo"},
		{doc: "backend = \"github\"\nrepo = \"../x/y\"", err: "workspace.repo"},
		{doc: "backend = \"github\"\nrepo = \"octo/app\"\nref = \"-x\"", err: "workspace.ref"},
		{doc: "backend = \"github\"\nrepo = \"octo/app\"\ntoken_env = \"A=B\"", err: "workspace.token_env"},
		{doc: "backend = \"github\"\nrepo = \"octo/app\"\napi_url = \"http://api.example/\"", err: "workspace.api_url"},
		{doc: "backend = \"github\"\nrepo = \"octo/app\"\napi_url = \"https://u:p@api.example/\"", err: "workspace.api_url"},
		{doc: "backend = \"github\"\nrepo = \"octo/app\"\napi_url = \"api.github.com\"", err: "workspace.api_url"},
		{doc: "backend = \"github\"\nrepo = \"octo/app\"\napi_url = \"https://api.example/?x=1\"", err: "workspace.api_url"},
	} {
		cfg, err := Parse("q.toml", []byte("[workspace]\n"+c.doc+"\n"))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %v, want an error naming %s", c.doc, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.doc, err)
		case c.err == "" && cfg.Workspace.BackendName() != c.backend:
			t.Errorf("%q: backend %q, want %q", c.doc, cfg.Workspace.BackendName(), c.backend)
		}
	}
}
