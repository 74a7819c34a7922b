package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/driver/catalog"
)

// TestToolsTokens: `quiver tools --tokens` prices every offered tool in
// every form, through quiver-models, and the full built-in catalogue stays
// within the budget in OpenAI Chat form.
func TestToolsTokens(t *testing.T) {
	dir := workdir(t, nil)
	r := runCLI(t, dir, "", "--json", "tools", "--tokens")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got tokensJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	forms := []catalog.Form{catalog.Chat, catalog.Responses, catalog.Anthropic, catalog.Gemini, catalog.MCP}
	if got.Encoding != "o200k_base" || len(got.Forms) != len(forms) {
		t.Fatalf("encoding %q, %d forms: %s", got.Encoding, len(got.Forms), r.stdout)
	}
	for i, c := range got.Forms {
		if c.Form != forms[i] || len(c.Tools) != len(got.Forms[0].Tools) {
			t.Errorf("form %d: %s with %d tools", i, c.Form, len(c.Tools))
		}
		// The whole array is not the sum of its elements (tokens merge across
		// their boundaries), but it is close to it.
		sum := 0
		for _, tc := range c.Tools {
			if tc.Tokens <= 0 {
				t.Errorf("%s: %s costs %d", c.Form, tc.Name, tc.Tokens)
			}
			sum += tc.Tokens
		}
		if d := c.Total - sum; d > len(c.Tools)*4 || -d > len(c.Tools)*4 {
			t.Errorf("%s: total %d, the sum of its tools %d", c.Form, c.Total, sum)
		}
	}
	if chat := got.Forms[0].Total; chat > 6000 {
		t.Errorf("the full catalogue costs %d tokens in Chat form, over 6,000", chat)
	}
	table := runCLI(t, dir, "", "tools", "--tokens")
	if table.code != 0 || !strings.Contains(table.stdout, "openai-chat") || !strings.Contains(table.stdout, "read_file") {
		t.Errorf("exit %d, table:\n%s%s", table.code, table.stdout, table.stderr)
	}
}
