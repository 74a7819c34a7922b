package tools

import (
	"errors"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
)

// notStrict are the built-in tools OpenAI strict mode cannot describe:
// validate_output's data is any JSON value, and strict mode has no "any".
// Drivers send them with strict off.
var notStrict = map[string]bool{"validate_output": true}

// TestCatalog holds every built-in tool to the contracts a model provider
// checks: a valid name, a description, an object input schema that compiles,
// and one that OpenAI strict mode accepts after conversion.
func TestCatalog(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("no built-in tools")
	}
	seen := map[string]bool{}
	for _, tl := range all {
		t.Run(tl.Name, func(t *testing.T) {
			if err := tl.Check(); err != nil {
				t.Fatal(err)
			}
			if seen[tl.Name] {
				t.Fatalf("two tools named %q", tl.Name)
			}
			seen[tl.Name] = true
			if strings.TrimSpace(tl.Description) == "" {
				t.Error("no description")
			}
			if _, err := schema.Compile(tl.InputSchema); err != nil {
				t.Errorf("input schema does not compile: %v", err)
			}
			strict, err := schema.OpenAIStrict(tl.InputSchema)
			if errors.Is(err, schema.ErrNotStrict) && notStrict[tl.Name] {
				return // sent with strict off, by design
			}
			if err != nil {
				t.Fatalf("OpenAIStrict: %v", err)
			}
			if err := schema.CheckOpenAIStrict(strict); err != nil {
				t.Errorf("strict schema breaks OpenAI's rules: %v", err)
			}
			if tl.Annotations.ReadOnly && tl.Risk != tool.RiskLow {
				t.Errorf("read-only tool with risk %s", tl.Risk)
			}
		})
	}
	for _, a := range Aliases() {
		if !seen[a.Target] {
			t.Errorf("alias %s points at unknown tool %s", a.Name, a.Target)
		}
	}
}
