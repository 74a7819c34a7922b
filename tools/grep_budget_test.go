package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
	"github.com/quiverkit/quiver/workspace"
)

// boundedBackend serves a MapFS and refuses, with workspace.ErrBudget,
// every file opened after the first limit: a remote backend's bound.
type boundedBackend struct {
	fstest.MapFS
	limit  int64
	opened *atomic.Int64
}

func (b boundedBackend) Name() string { return "bounded test backend" }

func (b boundedBackend) Open(name string) (fs.File, error) {
	if fi, err := b.MapFS.Lstat(name); err == nil && fi.Mode().IsRegular() && b.opened.Add(1) > b.limit {
		return nil, fmt.Errorf("open %s: %w", name, workspace.ErrBudget)
	}
	return b.MapFS.Open(name)
}

// TestGrepSearchSaysTheBudgetCutIt: when a backend's bound ends a search,
// the answer says so, in its typed output and in the text.
func TestGrepSearchSaysTheBudgetCutIt(t *testing.T) {
	files := fstest.MapFS{}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.txt", i)] = &fstest.MapFile{Data: []byte("needle\n")}
	}
	for _, tc := range []struct {
		limit int64
		cut   bool
	}{{limit: 100, cut: false}, {limit: 5, cut: true}} {
		ws := workspace.New(boundedBackend{MapFS: files, limit: tc.limit, opened: new(atomic.Int64)})
		shared := tool.NewScope(nil, nil)
		shared.Provide(workspace.Key.ID, ws)
		res, err := tooltest.Call(context.Background(), NewGrepSearch(BuiltinGrep), shared, `{"pattern":"needle","output_mode":"files","max_results":100}`)
		shared.Close()
		if err != nil {
			t.Fatal(err)
		}
		out := res.Output.(*GrepSearchOutput)
		raw, _ := json.Marshal(out)
		shows := strings.Contains(res.Parts[0].Text, "stopped early")
		if out.BudgetCut != tc.cut || shows != tc.cut || !tc.cut && out.TotalFiles != 40 || tc.cut && out.TotalFiles >= 40 {
			t.Errorf("limit %d: %s\n%s", tc.limit, raw, res.Parts[0].Text)
		}
	}
}
