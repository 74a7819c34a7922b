package measure

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/driver/catalog"
	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/driver/openai"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func twoTools() []driver.ToolDefinition {
	return []driver.ToolDefinition{
		{Name: "read_file", Description: "Read a file.", Parameters: &jsonschema.Schema{Type: "object",
			Properties: map[string]*jsonschema.Schema{"path": {Type: "string", Description: "relative to the workspace root"}},
			Required:   []string{"path"}}},
		{Name: "done", Description: "End the task.", Parameters: &jsonschema.Schema{Type: "object"}},
	}
}

// TestTotalIsTheWholeArray: a form's total is the tokens of the tools array
// exactly as its SDK marshals it — the wrapping Measure adds around the
// elements is the SDK's own.
func TestTotalIsTheWholeArray(t *testing.T) {
	defs := twoTools()
	whole := map[catalog.Form]func() (any, error){
		catalog.Chat:      func() (any, error) { return openai.ChatTools(defs) },
		catalog.Responses: func() (any, error) { return openai.ResponsesTools(defs) },
		catalog.Anthropic: func() (any, error) { return anthropic.Tools(defs) },
		catalog.Gemini:    func() (any, error) { return gemini.Tools(defs) },
	}
	costs, err := Measure(catalog.Input{Tools: defs})
	if err != nil {
		t.Fatal(err)
	}
	if len(costs) != len(whole) {
		t.Fatalf("got %d forms, want %d", len(costs), len(whole))
	}
	for _, c := range costs {
		v, err := whole[c.Form]()
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Tokens(string(b))
		if err != nil {
			t.Fatal(err)
		}
		if c.Total != want {
			t.Errorf("%s: total %d, the marshalled array has %d tokens: %s", c.Form, c.Total, want, b)
		}
		if got := []string{c.Tools[0].Name, c.Tools[1].Name}; !cmp.Equal(got, []string{"read_file", "done"}) {
			t.Errorf("%s: tools %v", c.Form, got)
		}
	}
}

// TestServeGolden holds the figures of a small catalogue, MCP form
// included, to a golden file: a change of tokenizer or of a driver's
// conversion shows here.
func TestServeGolden(t *testing.T) {
	mcp := []json.RawMessage{
		json.RawMessage(`{"name":"read_file","description":"Read a file.","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"done","description":"End the task.","inputSchema":{"type":"object"}}`),
	}
	body, err := json.Marshal(catalog.Input{Tools: twoTools(), MCP: mcp})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Serve(bytes.NewReader(body), &out); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "two_tools.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("figures changed (-want +got); go test -update if that is right:\n%s", diff)
	}
}

func TestServeRefusesUnknownFields(t *testing.T) {
	err := Serve(strings.NewReader(`{"tools":[],"tool":[]}`), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `"tool"`) {
		t.Fatalf("got %v, want an error naming the unknown field", err)
	}
}

// TestTokens pins the encoding: o200k_base, whose figures differ from
// cl100k's for the same text.
func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{`{"type":"function"}`, 5},
	} {
		got, err := Tokens(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Tokens(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
