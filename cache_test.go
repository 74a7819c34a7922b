package quiver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// bigLog prints n numbered lines with a needle at line needleAt.
type bigLogIn struct {
	Lines int `json:"lines"`
}

type bigLogOut struct {
	Text string `json:"text"`
}

func (o bigLogOut) Render() tool.Result { return tool.Text(o.Text) }

func bigLog(needleAt int) *tool.Tool {
	return tool.Func("big_log", "prints a long log", func(_ context.Context, _ tool.Context, in bigLogIn) (bigLogOut, error) {
		var b strings.Builder
		for i := 1; i <= in.Lines; i++ {
			if i == needleAt {
				b.WriteString("the NEEDLE is here\n")
				continue
			}
			fmt.Fprintf(&b, "log line %07d of the build output, nothing to see\n", i)
		}
		return bigLogOut{Text: b.String()}, nil
	}, tool.ReadOnly())
}

// cacheToolkit is a toolkit over an empty workspace with big_log.
func cacheToolkit(t *testing.T, opts ...quiver.Option) *quiver.Toolkit {
	t.Helper()
	tk, err := quiver.New(append([]quiver.Option{quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithTools(bigLog(50000))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

func TestOversizedOutputsAreTrimmedAndKeptWhole(t *testing.T) {
	ctx := context.Background()
	store, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tk := cacheToolkit(t, quiver.WithOutputCache(store, outputcache.Budget{}))
	out, err := tk.Invoke(ctx, "big_log", map[string]any{"lines": 100000}) // 5.3 MB
	if err != nil {
		t.Fatal(err)
	}
	view := out.Content.String()
	marker := fmt.Sprintf("bytes) omitted; full output: ref=%s, read it with tool_output_cache or search it with tool_output_cache_grep ...]", out.Content.OutputRef)
	if out.Content.OutputRef == "" || !strings.Contains(view, marker) || len(view) > 50<<10 ||
		!strings.HasPrefix(view, "log line 0000001") || !strings.HasSuffix(view, "log line 0100000 of the build output, nothing to see") {
		t.Fatalf("view of %d bytes, ref %q:\n%s...", len(view), out.Content.OutputRef, view[:200])
	}
	if strings.Contains(view, "NEEDLE") {
		t.Fatal("the middle is in the view")
	}
	if got := out.Content.Output.(bigLogOut).Text; len(got) < 5<<20 {
		t.Errorf("typed output trimmed to %d bytes", len(got))
	}

	found, err := tk.Invoke(ctx, outputcache.GrepTool, map[string]any{"ref_id": out.Content.OutputRef, "pattern": "NEEDLE", "before": 1})
	if err != nil {
		t.Fatal(err)
	}
	want := " 49999-log line 0049999 of the build output, nothing to see\n 50000:the NEEDLE is here\n(1 matching lines of 100000)"
	if found.Content.String() != want {
		t.Errorf("grep:\n%s\nwant:\n%s", found.Content.String(), want)
	}
	read, err := tk.Invoke(ctx, outputcache.ReadTool, map[string]any{"ref_id": out.Content.OutputRef, "offset": 50000, "limit": 1})
	if err != nil || read.Content.String() != " 50000\tthe NEEDLE is here\n(lines 50000-50000 of 100000; continue with offset=50001)" {
		t.Errorf("read: %q, %v", read.Content.String(), err)
	}
	if read.Content.OutputRef != "" || found.Content.OutputRef != "" {
		t.Errorf("the cache tools' answers were cached again")
	}

	// a second toolkit over the same directory, as a second process
	second := cacheToolkit(t, quiver.WithOutputCache(store, outputcache.Budget{}))
	again, err := second.Invoke(ctx, outputcache.GrepTool, map[string]any{"ref_id": out.Content.OutputRef, "pattern": "NEEDLE"})
	if err != nil || !strings.Contains(again.Content.String(), " 50000:the NEEDLE is here") {
		t.Errorf("second toolkit: %q, %v", again.Content.String(), err)
	}
}

func TestTypedCallsAreNeverTrimmed(t *testing.T) {
	tk := cacheToolkit(t)
	out, err := quiver.Call(context.Background(), tk, tool.RefTo[bigLogIn, bigLogOut]("big_log"), bigLogIn{Lines: 5000})
	if err != nil || strings.Count(out.Text, "\n") != 5000 || strings.Contains(out.Text, "omitted") {
		t.Errorf("typed output: %d lines, %v", strings.Count(out.Text, "\n"), err)
	}
}

func TestTheDefaultStoreIsInMemoryAndSharedWithTools(t *testing.T) {
	ctx := context.Background()
	tk := cacheToolkit(t)
	if _, ok := tk.OutputCache().(*outputcache.MemoryStore); !ok {
		t.Fatalf("default store is %T", tk.OutputCache())
	}
	out, err := tk.Invoke(ctx, "big_log", map[string]any{"lines": 3000})
	if err != nil {
		t.Fatal(err)
	}
	page, err := tk.Invoke(ctx, outputcache.ReadTool, map[string]any{"ref_id": out.Content.OutputRef, "offset": 3000})
	if err != nil || !strings.HasPrefix(page.Content.String(), "  3000\tlog line 0003000") {
		t.Errorf("%q, %v", page.Content.String(), err)
	}
	stored, err := quiver.Dependency(ctx, tk, outputcache.Key)
	if err != nil || stored != tk.OutputCache() {
		t.Errorf("tools see %v, the toolkit has %v (%v)", stored, tk.OutputCache(), err)
	}
}

func TestOutputBudgetIsConfigurable(t *testing.T) {
	tk := cacheToolkit(t, quiver.WithOutputCache(nil, outputcache.Budget{MaxLines: 10}))
	out, err := tk.Invoke(context.Background(), "big_log", map[string]any{"lines": 20})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.Content.String(), "\n")
	if len(lines) > 10 || out.Content.OutputRef != "" || !strings.Contains(out.Content.String(), "the output cache is off") {
		t.Errorf("%d lines, ref %q:\n%s", len(lines), out.Content.OutputRef, out.Content.String())
	}
	if _, err := tk.Invoke(context.Background(), outputcache.ReadTool, map[string]any{"ref_id": "out_aaaaaaaaaaaaaaaaaaaaaaaaaa"}); tool.CodeOf(err) != tool.CodeExecutionFailed {
		t.Errorf("reading without a store: %v", err)
	}
}

func TestAgentToolsThroughInvoke(t *testing.T) {
	ctx := context.Background()
	tk := cacheToolkit(t)

	out, err := tk.Invoke(ctx, "todo_manager", map[string]any{"items": []map[string]string{
		{"content": "Read", "activeForm": "Reading", "status": "completed"},
		{"content": "Fix", "activeForm": "Fixing", "status": "in_progress"},
	}})
	if err != nil || !strings.Contains(out.Content.String(), "[>] step-2: Fix") {
		t.Fatalf("%q, %v", out.Content.String(), err)
	}
	plan, err := quiver.Dependency(ctx, tk, tools.PlanKey)
	if cur, ok := plan.Current(); err != nil || !ok || cur.ID != "step-2" {
		t.Errorf("host's plan: %+v, %v", plan.Snapshot(), err)
	}
	_, err = tk.Invoke(ctx, "write_todos", map[string]any{"items": []map[string]string{
		{"content": "A", "activeForm": "Aing", "status": "in_progress"},
		{"content": "B", "activeForm": "Bing", "status": "in_progress"},
	}})
	if tool.CodeOf(err) != tool.CodeInvalidArguments || !strings.Contains(err.Error(), `items[0] ("A"), items[1] ("B")`) {
		t.Errorf("two in progress: %v", err)
	}

	done, err := tk.Invoke(ctx, "done", map[string]any{"summary": "all green"})
	if s, ok := tool.IsDone(done.Content); err != nil || !ok || s != "all green" {
		t.Errorf("done: %q %v %v", s, ok, err)
	}

	types, err := quiver.Dependency(ctx, tk, tools.OutputTypesKey)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	json.Unmarshal([]byte(`{"type":"object","required":["answer"],"properties":{"answer":{"type":"string"}},"additionalProperties":false}`), &s)
	if err := types.Register("answer", &s); err != nil {
		t.Fatal(err)
	}
	v, err := tk.Invoke(ctx, "validate_output", map[string]any{"outputType": "answer", "data": map[string]any{"answer": 42, "extra": true}})
	if err != nil {
		t.Fatal(err)
	}
	got := v.Content.Output.(*tools.ValidateOutputOutput)
	if got.Valid || len(got.Errors) != 2 || got.Details[0].Pointer != "/answer" || got.Details[1].Pointer != "/extra" {
		t.Errorf("%+v", got)
	}
	if _, err := tk.Invoke(ctx, "validate_output", map[string]any{"outputType": "nope", "data": 1}); tool.CodeOf(err) != tool.CodeInvalidArguments ||
		!strings.Contains(err.Error(), "the known ones are: answer") {
		t.Errorf("unknown type: %v", err)
	}
}
