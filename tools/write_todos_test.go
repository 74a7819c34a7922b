package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
)

// hostPlan returns the plan as a host sees it: the shared value of PlanKey.
func hostPlan(t *testing.T, e *cacheEnv) *Plan {
	t.Helper()
	p, err := tool.Resolve(context.Background(), tool.NewContext("host", "", nil, tool.NewScope(nil, e.shared)), PlanKey)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWriteTodosKeepsIdsForUnchangedContent(t *testing.T) {
	e := newCacheEnv(t, nil)
	steps := []struct {
		args string
		want []PlanItem
	}{
		{`{"items":[
			{"content":"Read the code","activeForm":"Reading the code","status":"in_progress"},
			{"content":"Write the tests","activeForm":"Writing the tests","status":"pending"}]}`,
			[]PlanItem{
				{ID: "step-1", Content: "Read the code", ActiveForm: "Reading the code", Status: "in_progress"},
				{ID: "step-2", Content: "Write the tests", ActiveForm: "Writing the tests", Status: "pending"},
			}},
		{`{"items":[
			{"content":"Read the code","activeForm":"Reading the code","status":"completed"},
			{"content":"Fix the parser","activeForm":"Fixing the parser","status":"in_progress"},
			{"content":"Write the tests","activeForm":"Writing the tests","status":"pending"}]}`,
			[]PlanItem{
				{ID: "step-1", Content: "Read the code", ActiveForm: "Reading the code", Status: "completed"},
				{ID: "step-3", Content: "Fix the parser", ActiveForm: "Fixing the parser", Status: "in_progress"},
				{ID: "step-2", Content: "Write the tests", ActiveForm: "Writing the tests", Status: "pending"},
			}},
		{`{"items":[
			{"content":"Write the tests first","activeForm":"Writing the tests","status":"pending"},
			{"content":"Fix the parser","activeForm":"Fixing the parser","status":"completed"}]}`,
			[]PlanItem{
				{ID: "step-4", Content: "Write the tests first", ActiveForm: "Writing the tests", Status: "pending"},
				{ID: "step-3", Content: "Fix the parser", ActiveForm: "Fixing the parser", Status: "completed"},
			}},
	}
	for i, s := range steps {
		res, err := e.run(newWriteTodos(), s.args)
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		out := res.Output.(*WriteTodosOutput)
		if diff := cmp.Diff(s.want, out.Items); diff != "" {
			t.Errorf("call %d (-want +got):\n%s", i+1, diff)
		}
		if diff := cmp.Diff(s.want, hostPlan(t, e).Snapshot()); diff != "" {
			t.Errorf("call %d: the host's view (-want +got):\n%s", i+1, diff)
		}
	}
}

func TestWriteTodosReportsTheCurrentItem(t *testing.T) {
	e := newCacheEnv(t, nil)
	var seen [][]PlanItem
	hostPlan(t, e).OnChange(func(items []PlanItem) { seen = append(seen, items) })
	res, err := e.run(newWriteTodos(), `{"items":[
		{"content":"Build","activeForm":"Building","status":"completed"},
		{"content":"Test","activeForm":"Testing","status":"in_progress"},
		{"content":"Ship","activeForm":"Shipping","status":"pending"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	out := res.Output.(*WriteTodosOutput)
	want := &PlanItem{ID: "step-2", Content: "Test", ActiveForm: "Testing", Status: "in_progress"}
	if diff := cmp.Diff(want, out.CurrentItem); diff != "" || out.MaxItems != 15 {
		t.Errorf("current (-want +got):\n%s; maxItems %d", diff, out.MaxItems)
	}
	wantText := "[x] step-1: Build\n[>] step-2: Test\n[ ] step-3: Ship\n(1 of 3 done; at most 15 items; now: Testing)"
	if diff := cmp.Diff(wantText, res.String()); diff != "" {
		t.Errorf("rendered (-want +got):\n%s", diff)
	}
	if cur, ok := hostPlan(t, e).Current(); !ok || cur.ID != "step-2" {
		t.Errorf("Plan.Current = %+v, %v", cur, ok)
	}
	if len(seen) != 1 || len(seen[0]) != 3 {
		t.Errorf("OnChange saw %v", seen)
	}
}

func TestWriteTodosRefusesBadPlansAndKeepsTheOldOne(t *testing.T) {
	item := func(content, active, status string) string {
		return `{"content":"` + content + `","activeForm":"` + active + `","status":"` + status + `"}`
	}
	sixteen := strings.Repeat(item("x", "xing", "pending")+",", 15) + item("y", "ying", "pending")
	cases := []struct {
		name, args, msg string
	}{
		{"two items in progress", `{"items":[` + item("A", "Doing A", "in_progress") + "," + item("B", "Doing B", "pending") + "," +
			item("C", "Doing C", "in_progress") + `]}`,
			`items[0] ("A"), items[2] ("C") are all in_progress; at most one item may be in_progress: mark the others pending or completed`},
		{"an activeForm of spaces", `{"items":[` + item("A", "  ", "pending") + `]}`,
			`items[0].activeForm is empty: give the step as it is being done ("A" -> "...ing")`},
		{"an empty activeForm", `{"items":[` + item("A", "", "pending") + `]}`, ""},
		{"no activeForm", `{"items":[{"content":"A","status":"pending"}]}`, ""},
		{"an unknown status", `{"items":[` + item("A", "Doing A", "done") + `]}`, ""},
		{"sixteen items", `{"items":[` + sixteen + `]}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newCacheEnv(t, nil)
			if _, err := e.run(newWriteTodos(), `{"items":[`+item("Keep", "Keeping", "pending")+`]}`); err != nil {
				t.Fatal(err)
			}
			_, err := e.run(newWriteTodos(), c.args)
			te := tool.AsError(err)
			if te == nil || te.Code != tool.CodeInvalidArguments || (c.msg != "" && te.Message != c.msg) {
				t.Errorf("err = %v, want INVALID_ARGUMENTS %s", err, c.msg)
			}
			if got := hostPlan(t, e).Snapshot(); len(got) != 1 || got[0].Content != "Keep" {
				t.Errorf("plan after a refused call: %+v", got)
			}
		})
	}
}

func TestCheckTodosCountsItemsItself(t *testing.T) {
	items := make([]TodoInput, 16)
	for i := range items {
		items[i] = TodoInput{Content: "x", ActiveForm: "xing", Status: TodoPending}
	}
	err := checkTodos(items)
	if tool.CodeOf(err) != tool.CodeInvalidArguments || !strings.Contains(err.Error(), "16 items, at most 15") {
		t.Errorf("err = %v", err)
	}
}

func TestWriteTodosEmptyPlanAndAlias(t *testing.T) {
	e := newCacheEnv(t, nil)
	res, err := e.run(newWriteTodos(), `{"items":[]}`)
	if err != nil || res.String() != "The plan is empty (it may hold up to 15 items)." {
		t.Errorf("empty plan: %q, %v", res.String(), err)
	}
	found := false
	for _, a := range Aliases() {
		found = found || (a.Name == "todo_manager" && a.Target == "write_todos")
	}
	if !found {
		t.Error("alias todo_manager -> write_todos is missing")
	}
}

// TestWriteTodosSpecContract holds the JSON answer to the agent tools'
// contract (todo_manager): the plan, maxItems and currentItem, by those
// names, called by the contract's name.
func TestWriteTodosSpecContract(t *testing.T) {
	e := newCacheEnv(t, nil)
	res, err := e.run(newWriteTodos(), `{"items": [
		{"content": "Gather context", "activeForm": "Gathering context", "status": "in_progress"},
		{"content": "Map domains", "activeForm": "Mapping domains", "status": "pending"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(res.Output)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"items":[` +
		`{"id":"step-1","content":"Gather context","activeForm":"Gathering context","status":"in_progress"},` +
		`{"id":"step-2","content":"Map domains","activeForm":"Mapping domains","status":"pending"}],` +
		`"maxItems":15,` +
		`"currentItem":{"id":"step-1","content":"Gather context","activeForm":"Gathering context","status":"in_progress"}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

// TestWriteTodosPlanPerSession: each session has its own plan, ids and all;
// the default session's is the host's (PlanKey), and a session's plan goes
// when the session ends.
func TestWriteTodosPlanPerSession(t *testing.T) {
	e := newCacheEnv(t, nil)
	call := func(session, args string) []string {
		t.Helper()
		ctx := context.Background()
		if session != "" {
			ctx = tool.WithSession(ctx, session)
		}
		res, err := tooltest.Call(ctx, newWriteTodos(), e.shared, args)
		if err != nil {
			t.Fatalf("session %q: %v", session, err)
		}
		var ids []string
		for _, it := range res.Output.(*WriteTodosOutput).Items {
			ids = append(ids, it.ID)
		}
		return ids
	}
	two := `{"items":[{"content":"A","activeForm":"Aing","status":"in_progress"},{"content":"B","activeForm":"Bing","status":"pending"}]}`
	one := `{"items":[{"content":"C","activeForm":"Cing","status":"pending"}]}`
	for _, s := range []struct {
		session, args string
		want          []string
	}{
		{"mcp:a", two, []string{"step-1", "step-2"}},
		{"mcp:b", one, []string{"step-1"}},
		{"", one, []string{"step-1"}},
		{"mcp:a", one, []string{"step-3"}},
		{"mcp:b", two, []string{"step-2", "step-3"}},
	} {
		if diff := cmp.Diff(s.want, call(s.session, s.args)); diff != "" {
			t.Errorf("session %q (-want +got):\n%s", s.session, diff)
		}
	}
	if got := hostPlan(t, e).Snapshot(); len(got) != 1 || got[0].Content != "C" {
		t.Errorf("the host's plan (the default session's) took another session's: %+v", got)
	}
	if err := e.shared.CloseSession("mcp:a"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"step-1"}, call("mcp:a", one)); diff != "" {
		t.Errorf("after the session ended (-want +got):\n%s", diff)
	}
}

// unavailablePlans is a PlanStore whose backing store cannot be reached.
type unavailablePlans struct{}

func (unavailablePlans) Replace(context.Context, string, []TodoInput) ([]PlanItem, error) {
	return nil, fmt.Errorf("redis down: %w", outputcache.ErrUnavailable)
}

func TestWriteTodosStoreUnavailable(t *testing.T) {
	shared := tool.NewScope(map[string]tool.Factory{PlansKey.ID: func(context.Context) (any, error) { return PlanStore(unavailablePlans{}), nil }}, nil)
	_, err := tooltest.Call(tool.WithSession(context.Background(), "mcp:a"), newWriteTodos(), shared,
		`{"items":[{"content":"A","activeForm":"Aing","status":"pending"}]}`)
	if tool.CodeOf(err) != tool.CodeStoreUnavailable || !strings.Contains(err.Error(), "try again later") {
		t.Errorf("write_todos with its store down: %v, want STORE_UNAVAILABLE", err)
	}
}
