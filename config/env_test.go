package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/markdown"
	"github.com/quiverkit/quiver/policy"
)

// TestEnvKeysAreUniqueAndDocumented: every key has one variable, no two
// keys share a name, and docs/config.md names each one.
func TestEnvKeysAreUniqueAndDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, k := range EnvKeys() {
		if other, ok := seen[k.Name]; ok {
			t.Errorf("%s and %s are both %s", other, k.Key, k.Name)
		}
		seen[k.Name] = k.Key
	}
	for _, want := range []string{"QUIVER_OUTPUT_STORE", "QUIVER_POLICY_DEFAULT", "QUIVER_POLICY_ALLOW", "QUIVER_TOOLS_MCP_SERVERS",
		"QUIVER_SANDBOX_DISABLED", "QUIVER_RUN_MODEL", "QUIVER_OUTPUTS", "QUIVER_REVIEW_REVIEWERS"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("no variable %s among %v", want, seen)
		}
	}
	if !strings.Contains(string(doc), "QUIVER_OUTPUT_STORE") || !strings.Contains(string(doc), "## Environment") {
		t.Error("docs/config.md has no Environment section naming the variables")
	}
}

func TestEnvLayer(t *testing.T) {
	cwd, _ := os.Getwd()
	cases := []struct {
		name    string
		file    string // the user's config.toml
		environ []string
		check   func(t *testing.T, c *Config)
		wantErr string
	}{
		{"a string is taken as it is, and wins over the file",
			"[output]\nstore = \"dir\"\nmax_bytes = 100\n", []string{"QUIVER_OUTPUT_STORE=redis://:pw@redis:6379/0", `QUIVER_RUN_SYSTEM_APPEND=say "hi" \ then`},
			func(t *testing.T, c *Config) {
				if c.Output.Store != "redis://:pw@redis:6379/0" || c.Output.MaxBytes != 100 || c.Run.SystemAppend != `say "hi" \ then` {
					t.Errorf("output %+v, system_append %q", c.Output, c.Run.SystemAppend)
				}
			}, ""},
		{"numbers, booleans and words",
			"", []string{"QUIVER_OUTPUT_MAX_TOTAL_BYTES=1048576", "QUIVER_SANDBOX_DISABLED=true", "QUIVER_POLICY_DEFAULT=deny"},
			func(t *testing.T, c *Config) {
				if c.Output.MaxTotalBytes != 1<<20 || !c.Sandbox.Disabled || c.Policy.Default.Decision != policy.Deny {
					t.Errorf("got %+v %+v %+v", c.Output, c.Sandbox, c.Policy.Default)
				}
			}, ""},
		{"a list is TOML, and adds to the file's as a layer does",
			"[policy]\nallow = [\"read_file\"]\n", []string{`QUIVER_POLICY_ALLOW=["list_files", "exec_command(git status)"]`},
			func(t *testing.T, c *Config) {
				var got []string
				for _, r := range c.Policy.Allow {
					got = append(got, r.Text)
				}
				if diff := cmp.Diff([]string{"read_file", "list_files", "exec_command(git status)"}, got); diff != "" {
					t.Errorf("allow (-want +got):\n%s", diff)
				}
			}, ""},
		{"a relative path is the current directory's",
			"", []string{"QUIVER_OUTPUT_DIR=cache/outputs"},
			func(t *testing.T, c *Config) {
				if c.Output.Dir != filepath.Join(cwd, "cache/outputs") {
					t.Errorf("dir %q", c.Output.Dir)
				}
				if len(c.Files) != 1 {
					t.Errorf("files %v: the environment is not a file", c.Files)
				}
			}, ""},
		{"other QUIVER_ variables are left alone",
			"", []string{"QUIVER_TOKEN=x", "QUIVER_SANDBOX_SPEC={}", "QUIVER_TOOLS=/opt"},
			func(t *testing.T, c *Config) {
				if n := len(c.Layers); n != 1 {
					t.Errorf("layers %+v, want the user's only", c.Layers)
				}
			}, ""},
		{"a bad value names the variable", "", []string{"QUIVER_OUTPUT_MAX_BYTES=lots"}, nil, "QUIVER_OUTPUT_MAX_BYTES (output.max_bytes)"},
		{"a bad word names the variable", "", []string{"QUIVER_POLICY_DEFAULT=maybe"}, nil, "QUIVER_POLICY_DEFAULT (policy.default)"},
		{"a bad store is refused without repeating a password", "", []string{"QUIVER_OUTPUT_STORE=http://:secret@x"}, nil, `scheme "http"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			user, proj := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(user, UserFileName), []byte(c.file), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadLayers(LoadOptions{Dir: proj, UserDir: user, Environ: append(c.environ, "HOME=/nowhere")})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || strings.Contains(err.Error(), "secret") {
					t.Fatalf("err = %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, cfg)
			if len(c.environ) > 0 && !strings.HasPrefix(c.name, "other") {
				if last := cfg.Layers[len(cfg.Layers)-1]; last.Kind != LayerEnv {
					t.Errorf("last layer %+v, want the environment", last)
				}
			}
		})
	}
}

// TestEnvLayerAppliesOverConfigFlag: with --config, the environment still
// lays over the file (a container's ConfigMap, and its Secret's URL).
func TestEnvLayerAppliesOverConfigFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "quiver.toml")
	os.WriteFile(file, []byte("[output]\nstore = \"memory\"\n"), 0o600)
	cfg, err := LoadLayers(LoadOptions{Explicit: file, Dir: t.TempDir(), UserDir: t.TempDir(),
		Environ: []string{"QUIVER_OUTPUT_STORE=unix:///run/redis.sock"}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Output.Store != "unix:///run/redis.sock" {
		t.Errorf("store %q", cfg.Output.Store)
	}
	_, err = LoadLayers(LoadOptions{Explicit: file, Dir: t.TempDir(), UserDir: t.TempDir(), Environ: []string{"QUIVER_OUTPUT_STORE=ftp://x"}})
	if err == nil {
		t.Error("a bad store from the environment over --config was accepted")
	}
}

// TestDeployManifestNamesRealKeys: every QUIVER_ variable the Kubernetes
// manifest of docs/deploy.md sets is a key (or the token the manifest's
// --token-env names), and the manifest has its probes and the OTLP
// variables.
func TestDeployManifestNamesRealKeys(t *testing.T) {
	doc, err := os.ReadFile("../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	block, ok := markdown.Parse(string(doc)).Block("yaml")
	if !ok {
		t.Fatal("docs/deploy.md has no yaml block")
	}
	manifest := block.Text
	keys := map[string]bool{"QUIVER_TOKEN": true}
	for _, k := range EnvKeys() {
		keys[k.Name] = true
	}
	seen := 0
	for _, line := range strings.Split(manifest, "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "- name: QUIVER_")
		if !ok {
			continue
		}
		seen++
		if !keys["QUIVER_"+name] {
			t.Errorf("the manifest sets QUIVER_%s, which is no key", name)
		}
	}
	for _, want := range []string{"path: /healthz", "path: /readyz", "OTEL_EXPORTER_OTLP_ENDPOINT", "kind: Deployment", "kind: Service", "noeviction"} {
		if !strings.Contains(manifest, want) {
			t.Errorf("the manifest has no %q", want)
		}
	}
	if seen < 3 {
		t.Errorf("the manifest sets %d QUIVER_ variables; it should configure Quiver through them", seen)
	}
}
