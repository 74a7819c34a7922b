package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/workspace/gitref"
)

// The workspace backends.
const (
	BackendLocal  = "local"
	BackendGit    = "git"
	BackendGitHub = "github"
)

// Defaults of the GitHub backend.
const (
	DefaultTokenEnv = "GITHUB_TOKEN"
	DefaultAPIURL   = "https://api.github.com/"
)

// githubRepo is owner/name as GitHub allows them.
var githubRepo = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// BackendName returns the backend in force: Backend, or "git" when only
// ref is set, or "local".
func (w Workspace) BackendName() string {
	switch {
	case w.Backend != "":
		return w.Backend
	case w.Ref != "":
		return BackendGit
	}
	return BackendLocal
}

// Check validates the [workspace] backend keys, each error naming its key:
// a known backend; for git a ref that is a plain name (not an option, a
// range or a path in an object); for github owner/name, a plain ref, an
// environment variable's name, and an https URL (http only to a loopback
// address) without credentials; and no key of another backend.
func (w Workspace) Check() error {
	b := w.BackendName()
	unused := func(keys ...string) error {
		for _, k := range keys {
			if w.value(k) != "" {
				return fmt.Errorf("workspace.%s: set only with backend = %q, not %q", k, backendOf(k), b)
			}
		}
		return nil
	}
	switch b {
	case BackendLocal:
		return unused("ref", "repo", "token_env", "api_url")
	case BackendGit:
		if w.Ref == "" {
			return fmt.Errorf("workspace.ref: backend = \"git\" serves one commit; give it (ref = \"origin/feature\")")
		}
		if err := gitref.CheckRef("workspace.ref", w.Ref); err != nil {
			return err
		}
		return unused("repo", "token_env", "api_url")
	case BackendGitHub:
		return w.checkGitHub()
	}
	return fmt.Errorf("workspace.backend: %q, want %q, %q or %q", w.Backend, BackendLocal, BackendGit, BackendGitHub)
}

func (w Workspace) checkGitHub() error {
	switch {
	case w.Repo == "":
		return fmt.Errorf("workspace.repo: backend = \"github\" needs the repository, as owner/name")
	case !githubRepo.MatchString(w.Repo) || strings.HasSuffix(w.Repo, "/.") || strings.HasSuffix(w.Repo, "/.."):
		return fmt.Errorf("workspace.repo: %q is not a GitHub repository's owner/name", w.Repo)
	case w.TokenEnv != "" && !sandbox.ValidEnvName(w.TokenEnv):
		return fmt.Errorf("workspace.token_env: %q is not the name of an environment variable", w.TokenEnv)
	}
	if w.Ref != "" {
		if err := gitref.CheckRef("workspace.ref", w.Ref); err != nil {
			return err
		}
	}
	if w.APIURL != "" {
		return checkAPIURL(w.APIURL)
	}
	return nil
}

// checkAPIURL accepts https URLs, and http ones to a loopback address (a
// test server, a local proxy): the token goes there.
func checkAPIURL(raw string) error {
	u, err := url.Parse(raw)
	bad := func(why string) error { return fmt.Errorf("workspace.api_url: %q %s", raw, why) }
	switch {
	case err != nil || u.Host == "" || !u.IsAbs():
		return bad("is not an absolute URL (https://api.github.com/, or https://HOST/api/v3/ for GitHub Enterprise)")
	case u.User != nil:
		return bad("holds credentials; the token comes from token_env")
	case u.RawQuery != "" || u.Fragment != "":
		return bad("has a query or fragment")
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return bad("is not https (http only to a loopback address): the token would travel in clear")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// value returns the key's value, by its TOML name.
func (w Workspace) value(key string) string {
	return map[string]string{"ref": w.Ref, "repo": w.Repo, "token_env": w.TokenEnv, "api_url": w.APIURL}[key]
}

// backendOf names the backend a key belongs to.
func backendOf(key string) string {
	if key == "ref" {
		return "git or github"
	}
	return BackendGitHub
}
