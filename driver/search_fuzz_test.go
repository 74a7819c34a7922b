package driver_test

import (
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/quiverkit/quiver/driver"
)

// searchDefs are the definitions the search fuzzing runs over: deferred
// tools, one that is not, and names that contain one another.
var searchDefs = []driver.ToolDefinition{
	{Name: "web_fetch", Description: "Fetches a web page as Markdown.", Deferred: true,
		Parameters: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"url": {Type: "string"}}}},
	{Name: "web_search", Description: "Searches the web.", Deferred: true},
	{Name: "list_dirs", Description: "Lists directories.", Deferred: true},
	{Name: "list_files", Description: "Lists files under a directory.", Deferred: true},
	{Name: "read_file", Description: "Reads a file."}, // up front: never a result
	{Name: "tree", Description: "Shows the directory tree.", Deferred: true},
}

// FuzzSearchTools: whatever the query and limit, a search returns at most
// the limit (default 5, at most 20) of the deferred tools, each once; a
// query that is a deferred tool's name finds that tool first.
func FuzzSearchTools(f *testing.F) {
	f.Add("web page", 0)
	f.Add("list_dirs", 1)
	f.Add("WEB_FETCH, tree", 20)
	f.Add("a of it", -3)
	f.Add("url", 1000)
	f.Fuzz(func(t *testing.T, query string, limit int) {
		got := driver.SearchTools(searchDefs, query, limit)
		want := limit
		if limit <= 0 {
			want = driver.ToolSearchLimit
		}
		if len(got) > min(want, 20) {
			t.Errorf("%d results for limit %d", len(got), limit)
		}
		seen := map[string]bool{}
		for _, d := range got {
			if !d.Deferred || seen[d.Name] {
				t.Errorf("result %s: deferred %v, seen before %v", d.Name, d.Deferred, seen[d.Name])
			}
			seen[d.Name] = true
		}
		for _, d := range searchDefs {
			if d.Deferred && strings.ToLower(query) == d.Name && (len(got) == 0 || got[0].Name != d.Name) {
				t.Errorf("query %q: first result %v, want %s", query, got, d.Name)
			}
		}
	})
}
