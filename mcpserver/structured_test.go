package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
)

// A call's structured content is held to the budget its text is held to:
// a read of a 200 KB file sends a trimmed text and a structured content
// each within the budget (both name the ref of the whole output), not the
// whole file a second time; the structured content keeps its shape. A
// small result's structured content is sent whole.
func TestStructuredContentKeepsTheTextBudget(t *testing.T) {
	dir := t.TempDir()
	var big strings.Builder
	for big.Len() < 200_000 {
		big.WriteString("a line of the big file, long enough to count\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	srv, err := mcpserver.New(t.Context(), tk, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	budget := outputcache.DefaultBudget().MaxBytes

	res := callJSON(t, cs, "read_file", map[string]any{"path": "big.txt", "limit": 5000})
	ref, _ := res["_meta"].(map[string]any)[mcpserver.MetaOutputRef].(string)
	sc, _ := res["structuredContent"].(map[string]any)
	body, _ := json.Marshal(sc)
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	if ref == "" || len(text) > budget+1024 {
		t.Fatalf("text of %d bytes, ref %q: want a trimmed text naming a ref", len(text), ref)
	}
	if len(body) > budget {
		t.Errorf("structured content of %d bytes, over the %d-byte budget", len(body), budget)
	}
	content, _ := sc["content"].(string)
	if !strings.Contains(content, "ref="+ref) || sc["path"] != "big.txt" || sc["total_lines"] == nil {
		t.Errorf("structured content lost its shape or the ref: path %v, total_lines %v, content names the ref: %v",
			sc["path"], sc["total_lines"], strings.Contains(content, "ref="+ref))
	}

	small := callJSON(t, cs, "read_file", map[string]any{"path": "small.txt"})
	if sc, _ := small["structuredContent"].(map[string]any); !strings.Contains(sc["content"].(string), "two") || strings.Contains(sc["content"].(string), "omitted") {
		t.Errorf("a small result's structured content: %v", small["structuredContent"])
	}
}
