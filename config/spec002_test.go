package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The examples of the plugin tool system's specification (002), committed
// verbatim in testdata/spec002, load as they are.
func TestSpec002ExamplesLoad(t *testing.T) {
	yes := true
	gh := Custom{Name: "gh_create_issue", Description: "Create a GitHub issue",
		Command: "gh issue create --title {title} --body {body}", Risk: "high",
		Params: []CustomParam{
			{Name: "body", Type: "string", Description: "Issue body content", Required: true},
			{Name: "title", Type: "string", Description: "Issue title", Required: true},
		}}
	cases := []struct {
		file string
		want Tools
	}{
		{"quickstart.toml", Tools{CLI: CLI{Aliases: map[string]string{"grep_search": "rg", "glob_search": "fd"}}}},
		{"custom-gh-create-issue.toml", Tools{Custom: []Custom{gh}}},
		{"custom-list-branches.toml", Tools{Custom: []Custom{{Name: "list_branches", Description: "List git branches",
			Command: "git branch --list {pattern}", Risk: "low",
			Params: []CustomParam{{Name: "pattern", Type: "string", Description: "Branch name pattern (e.g., 'feat/*')"}}}}}},
		{"quorum.toml", Tools{
			Providers:            []ProviderKind{{KindCLI}, {KindBuiltin}},
			SuggestEnhancedTools: true,
			Builtin:              Builtin{Enabled: &yes},
			CLI:                  CLI{Enabled: &yes, Aliases: map[string]string{"grep_search": "grep", "glob_search": "find"}},
			Custom:               []Custom{gh},
			MCP: MCP{Enabled: &yes, Servers: []MCPServer{{Name: "filesystem", Command: "npx",
				Args: []string{"-y", "@anthropic/mcp-server-filesystem", "/workspace"}}}},
		}},
		{"option1-custom-tool.toml", Tools{Custom: []Custom{{Name: "my_tool", Description: "My custom tool description",
			Command: "my-cli-command {arg1} --flag {arg2}", Risk: "high",
			Params: []CustomParam{
				{Name: "arg1", Type: "string", Description: "First argument", Required: true},
				{Name: "arg2", Type: "string", Description: "Second argument"},
			}}}}},
		{"option2-cli-alias.toml", Tools{CLI: CLI{Aliases: map[string]string{"my_tool": "external-cli-command"}}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			cfg, err := Load(filepath.Join("testdata", "spec002", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, cfg.Tools, cmpopts.IgnoreFields(Custom{}, "At"), cmpopts.IgnoreFields(MCPServer{}, "At")); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}

// Both forms of custom tools decode to the same definitions.
func TestCustomFormsAgree(t *testing.T) {
	spec := `
[tools.custom.lint]
description = "Lint one package"
command = "golangci-lint run {pkg}"
risk_level = "low"
timeout = 30

[tools.custom.lint.parameters.pkg]
type = "string"
description = "the package"
enum = ["./...", "./config"]
`
	quiver := `
[[tools.custom]]
name = "lint"
description = "Lint one package"
command = "golangci-lint run {pkg}"
risk = "low"
timeout = 30
params = [{ name = "pkg", type = "string", description = "the package", required = true, enum = ["./...", "./config"] }]
`
	a, err := Parse("spec.toml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("quiver.toml", []byte(quiver))
	if err != nil {
		t.Fatal(err)
	}
	// Where each is written differs, of course.
	if diff := cmp.Diff(b.Tools.Custom, a.Tools.Custom, cmpopts.IgnoreFields(Custom{}, "At")); diff != "" {
		t.Errorf("spec form differs from [[tools.custom]] (-quiver +spec):\n%s", diff)
	}
}

func TestSpecFormErrorsHavePositions(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"spec form: unknown key in a tool", "[tools.custom.x]\ncommand = \"echo\"\nrisk = \"low\"\n", `q.toml:3:1: unknown key "tools.custom.x.risk"`},
		{"spec form: unknown key in a parameter", "[tools.custom.x]\ncommand = \"echo {a}\"\n[tools.custom.x.parameters.a]\nkind = \"string\"\n", `q.toml:4:1: unknown key "tools.custom.x.parameters.a.kind"`},
		{"spec form: bad risk level", "[tools.custom.x]\ncommand = \"echo\"\nrisk_level = \"medium\"\n", `q.toml:3:14: risk level "medium"`},
		{"spec form: unknown key elsewhere still found", "[tools.custom.x]\ncommand = \"echo\"\n[workspace]\nroots = \".\"\n", `q.toml:4:1: unknown key "workspace.roots"`},
		{"providers: unknown kind", "[tools]\nproviders = [\"cli\", \"plugins\"]\n", `q.toml:2:21: provider "plugins"`},
		{"providers: listed twice", "[tools]\nproviders = [\"cli\", \"cli\"]\n", `"cli" is listed twice`},
		{"providers: listed but turned off", "[tools]\nproviders = [\"builtin\"]\n[tools.builtin]\nenabled = false\n", `lists "builtin", but [tools.builtin] turns it off`},
		{"builtin: unknown key", "[tools.builtin]\nenable = true\n", `q.toml:2:1: unknown key "tools.builtin.enable"`},
		{"review: unknown rule", "[review]\nrule = \"unanimous\"\n", `q.toml:2:8: rule "unanimous"`},
		{"review: unknown provider", "[[review.reviewers]]\nprovider = \"mistral\"\nmodel = \"m\"\n", `q.toml:2:12: provider "mistral"`},
		{"review: bad risk", "[review]\nrisk = [\"severe\"]\n", `q.toml:2:9: risk level "severe"`},
		{"review: reviewer without model", "[[review.reviewers]]\nprovider = \"openai\"\n", "review.reviewers[0]: model is required"},
		{"review: reviewer without provider", "[[review.reviewers]]\nmodel = \"m\"\n", "review.reviewers[0]: provider is required"},
		{"review: unknown key", "[[review.reviewers]]\nprovider = \"openai\"\nmodel = \"m\"\napi_key = \"sk-1\"\n", `q.toml:4:1: unknown key "review.reviewers.api_key"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("q.toml", []byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestProviderOn(t *testing.T) {
	type on map[string]bool
	cases := []struct {
		name, doc string
		want      on
	}{
		{"no [tools]: every source", "", on{KindBuiltin: true, KindCLI: true, KindCustom: true, KindScript: true, KindMCP: true}},
		{"the spec's list, mcp enabled by its own section", "[tools]\nproviders = [\"cli\", \"builtin\"]\n[tools.mcp]\nenabled = true\n",
			on{KindBuiltin: true, KindCLI: true, KindCustom: true, KindScript: false, KindMCP: true}},
		{"a list leaves out what it does not name", "[tools]\nproviders = [\"builtin\"]\n",
			on{KindBuiltin: true, KindCLI: false, KindCustom: true, KindScript: false, KindMCP: false}},
		{"enabled = false turns a source off", "[tools.cli]\nenabled = false\n[tools.builtin]\nenabled = false\n",
			on{KindBuiltin: false, KindCLI: false, KindCustom: true, KindScript: true, KindMCP: true}},
		{"quiver's disabled = true", "[tools.cli]\ndisabled = true\n",
			on{KindBuiltin: true, KindCLI: false, KindCustom: true, KindScript: true, KindMCP: true}},
		{"mcp enabled = false", "[tools.mcp]\nenabled = false\n",
			on{KindBuiltin: true, KindCLI: true, KindCustom: true, KindScript: true, KindMCP: false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse("q.toml", []byte(c.doc))
			if err != nil {
				t.Fatal(err)
			}
			got := on{}
			for _, k := range kinds {
				got[k] = cfg.Tools.ProviderOn(k)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReviewSection(t *testing.T) {
	doc := `
[review]
risk = ["high", "low"]
rule = "majority"
timeout = 20

[[review.reviewers]]
provider = "openai"
model = "gpt-4.1-mini"
base_url = "http://127.0.0.1:8080/v1"
api = "chat"
api_key_env = "REVIEW_KEY"

[[review.reviewers]]
provider = "anthropic"
model = "claude-haiku-4-5"
`
	cfg, err := Parse("q.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := &Review{Risk: []RiskLevel{{"high"}, {"low"}}, Rule: ReviewRule{"majority"}, TimeoutSecs: 20,
		Reviewers: []Reviewer{
			{Provider: ModelProvider{"openai"}, Model: "gpt-4.1-mini", BaseURL: "http://127.0.0.1:8080/v1", API: "chat", APIKeyEnv: "REVIEW_KEY"},
			{Provider: ModelProvider{"anthropic"}, Model: "claude-haiku-4-5"},
		}}
	if diff := cmp.Diff(want, cfg.Review); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !cfg.Review.Reviews("low") || !(&Review{}).Reviews("high") || (&Review{}).Reviews("low") {
		t.Errorf("Reviews: the default is high only; a list is what it names")
	}
	none, err := Parse("q.toml", nil)
	if err != nil || none.Review != nil {
		t.Errorf("no [review]: Review = %+v, %v; want nil", none.Review, err)
	}
}
