package config

import (
	"encoding"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/markdown"
)

// The reference, docs/config.md, is held to the Config struct by this rule:
//
//   - A heading whose text starts with a TOML table header — "## [exec]",
//     "### [[tools.mcp.servers]]", "### [outputs.NAME]" — opens that table;
//     any other heading closes it.
//   - Under an open table, a row of a Markdown table whose first cell is a
//     key in backquotes ("| `max_timeout_secs` | ...") documents the key
//     TABLE.KEY. A row may also name a table held in its parent
//     ("| `params` |" under [[tools.custom]]), whose own keys are then
//     documented under its own heading.
//
// The keys of Config are found by reflection, through the toml tags: a
// struct is a table; a slice of structs is an array of tables, its keys
// under the same name ([[tools.custom]] name is tools.custom.name); a map
// whose values are structs is a table of tables, written NAME
// ([outputs.NAME] schema is outputs.NAME.schema); anything else — a
// scalar, a list, a map of scalars (policy.tools, tools.cli.aliases), a
// type that decodes itself (a Rule, sandbox.Network) — is one key. The
// spec's form of custom tools, [tools.custom.NAME], is walked as well.
//
// Each key of Config must be documented, and each key documented must be a
// key of Config: a key added to Config, or one removed, fails this test
// until docs/config.md says so.

const referencePath = "../docs/config.md"

func TestReferenceDocumentsEveryKey(t *testing.T) {
	keys := configKeys()
	documented := documentedKeys(t, referencePath)
	for _, k := range keys {
		if !documented[k] {
			t.Errorf("%s does not document the key %s (add a row `%s` under the heading of [%s])",
				referencePath, k, k[strings.LastIndex(k, ".")+1:], k[:max(strings.LastIndex(k, "."), 0)])
		}
	}
	for k := range documented {
		if !slices.ContainsFunc(keys, func(key string) bool { return key == k || strings.HasPrefix(key, k+".") }) {
			t.Errorf("%s documents %s, which is no key of config.Config", referencePath, k)
		}
	}
}

// configKeys lists every key of the configuration, sorted.
func configKeys() []string {
	var keys []string
	walkKeys(reflect.TypeFor[Config](), "", &keys)
	walkKeys(reflect.TypeFor[SpecCustom](), "tools.custom.NAME", &keys)
	slices.Sort(keys)
	return slices.Compact(keys)
}

func walkKeys(t reflect.Type, prefix string, keys *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		switch ft := f.Type; {
		case isTable(ft):
			walkKeys(deref(ft), key, keys)
		case ft.Kind() == reflect.Slice && isTable(ft.Elem()):
			walkKeys(deref(ft.Elem()), key, keys)
		case ft.Kind() == reflect.Map && isTable(ft.Elem()):
			walkKeys(deref(ft.Elem()), key+".NAME", keys)
		default:
			*keys = append(*keys, key)
		}
	}
}

// isTable reports whether t is written as a TOML table: a struct that does
// not decode itself from a value.
func isTable(t reflect.Type) bool {
	t = deref(t)
	if t.Kind() != reflect.Struct {
		return false
	}
	p := reflect.PointerTo(t)
	_, selfDecoding := p.MethodByName("UnmarshalTOML")
	return !selfDecoding && !p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

var (
	tableHeading = regexp.MustCompile(`^#+ +\[\[?([A-Za-z0-9_.]+)\]\]?`)
	keyRow       = regexp.MustCompile("^\\| *`([A-Za-z0-9_]+)` *\\|")
)

// documentedKeys reads the keys docs/config.md documents, by the rule at
// the top of this file.
func documentedKeys(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the configuration reference: %v", err)
	}
	out := map[string]bool{}
	table := ""
	for _, line := range markdown.Parse(string(data)).Prose {
		switch {
		case strings.HasPrefix(line, "#"):
			table = ""
			if m := tableHeading.FindStringSubmatch(line); m != nil {
				table = m[1]
			}
		case table != "":
			if m := keyRow.FindStringSubmatch(line); m != nil {
				out[table+"."+m[1]] = true
			}
		}
	}
	return out
}

// TestReferenceRule holds the rule itself to a small document, so that a
// change to the parser that documents nothing cannot pass the test above.
func TestReferenceRule(t *testing.T) {
	doc := "# Title\n| `stray` | not under a table |\n" +
		"## [exec]\n| key | type |\n| --- | --- |\n| `max_timeout_secs` | integer |\n" +
		"```toml\n# [fenced]\n```\n| `env_allow` | list |\n" +
		"### [[tools.mcp.servers]] one per server\n| `name` | string |\n" +
		"## Layers\n| `not_a_key` | prose |\n"
	path := t.TempDir() + "/config.md"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"exec.max_timeout_secs": true, "exec.env_allow": true, "tools.mcp.servers.name": true}
	if diff := cmp.Diff(want, documentedKeys(t, path)); diff != "" {
		t.Errorf("documented keys (-want +got):\n%s", diff)
	}
	keys := configKeys()
	for _, k := range []string{"workspace.root", "policy.tools", "tools.cli.aliases", "tools.mcp.servers.env",
		"tools.custom.params.allow_options", "outputs.NAME.schema", "sandbox.network", "review.reviewers.model",
		"tools.custom.NAME.parameters.NAME.required", "run.parallel_tool_calls"} {
		if !slices.Contains(keys, k) {
			t.Errorf("configKeys() lacks %s", k)
		}
	}
	for _, k := range keys {
		if strings.HasPrefix(k, "path") || strings.HasPrefix(k, "layers") || strings.Contains(k, "network.") {
			t.Errorf("configKeys() has %s, which is not a key of the file", k)
		}
	}
}
