package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProtectedKey(t *testing.T) {
	c, err := Parse("q.toml", []byte("[policy]\nprotected = [\"deploy/**\", \"Makefile\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"deploy/**", "Makefile"}, c.PolicyConfig().Protected); diff != "" {
		t.Errorf("Protected (-want +got):\n%s", diff)
	}
	for doc, want := range map[string]string{
		"[policy]\nprotected = [\"ok\", \"../up\"]\n": `q.toml:2:20: "../up" is outside the workspace`,
		"[policy]\nprotected = [\"**\"]\n":            `q.toml:2:14: "**" would protect the whole workspace`,
		"[policy]\nprotected = [\"a/[b\"]\n":          `q.toml:2:14: "a/[b" is not a valid glob`,
	} {
		if _, err := Parse("q.toml", []byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", doc, err, want)
		}
	}
}
