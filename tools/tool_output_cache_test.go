package tools

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
)

// cacheEnv runs tools the way the pipeline does (arguments validated
// against the schema, then executed) with a toolkit-wide scope holding an
// output cache and whatever else a test provides.
type cacheEnv struct {
	t      testing.TB
	store  outputcache.Store
	shared *tool.Scope
}

func newCacheEnv(t testing.TB, store outputcache.Store) *cacheEnv {
	shared := tool.NewScope(nil, nil)
	if store != nil {
		shared.Provide(outputcache.Key.ID, store)
	}
	return &cacheEnv{t: t, store: store, shared: shared}
}

func (e *cacheEnv) run(tl *tool.Tool, args string) (tool.Result, error) {
	e.t.Helper()
	return tooltest.Call(context.Background(), tl, e.shared, args)
}

func (e *cacheEnv) put(data string) string {
	e.t.Helper()
	w, err := e.store.Create(context.Background(), outputcache.Info{Tool: "exec_command", CallID: "c"})
	if err != nil {
		e.t.Fatal(err)
	}
	io.WriteString(w, data)
	if err := w.Close(); err != nil {
		e.t.Fatal(err)
	}
	return w.Ref()
}

func lineRange(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestToolOutputCacheReads(t *testing.T) {
	e := newCacheEnv(t, outputcache.NewMemoryStore(outputcache.MemoryOptions{}))
	ref := e.put(lineRange(1, 5000))
	long := e.put("short\n" + strings.Repeat("x", 100<<10) + "\nafter\n")
	cases := []struct {
		name, args, want string
	}{
		{"a page from an offset", `{"ref_id":"` + ref + `","offset":4998,"limit":2}`,
			"  4998\tline 4998\n  4999\tline 4999\n(lines 4998-4999 of 5000; continue with offset=5000)"},
		{"the last line", `{"ref_id":"` + ref + `","offset":5000}`,
			"  5000\tline 5000\n(lines 5000-5000 of 5000: the end of the output)"},
		{"offset 0 means the start", `{"ref_id":"` + ref + `","offset":0,"limit":1}`,
			"     1\tline 1\n(lines 1-1 of 5000; continue with offset=2)"},
		{"a line longer than an answer is shown in part", `{"ref_id":"` + long + `","offset":2,"limit":1}`,
			"     2\t" + strings.Repeat("x", 65273) + " [... line 2 continues for 37127 more bytes; search in it with tool_output_cache_grep ...]\n(lines 2-2 of 3; continue with offset=3)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.run(newToolOutputCache(), c.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, res.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolOutputCacheAnswersStayWithin64KB(t *testing.T) {
	e := newCacheEnv(t, outputcache.NewMemoryStore(outputcache.MemoryOptions{}))
	ref := e.put(strings.Repeat(strings.Repeat("w", 200)+"\n", 3000))
	res, err := e.run(newToolOutputCache(), `{"ref_id":"`+ref+`"}`)
	if err != nil {
		t.Fatal(err)
	}
	out := res.Output.(*ToolOutputCacheOutput)
	if len(res.String()) > 64<<10 || !out.Truncated || out.NextOffset != out.EndLine+1 || out.StartLine != 1 {
		t.Errorf("content %d bytes, lines %d-%d, next %d", len(out.Content), out.StartLine, out.EndLine, out.NextOffset)
	}
	next, err := e.run(newToolOutputCache(), fmt.Sprintf(`{"ref_id":%q,"offset":%d}`, ref, out.NextOffset))
	if err != nil || next.Output.(*ToolOutputCacheOutput).StartLine != out.EndLine+1 {
		t.Errorf("continuing: %v", err)
	}
}

func TestToolOutputCacheRefusesBadInput(t *testing.T) {
	e := newCacheEnv(t, outputcache.NewMemoryStore(outputcache.MemoryOptions{}))
	ref := e.put(lineRange(1, 10))
	cases := []struct {
		name, args string
		code       tool.Code
		msg        string
	}{
		{"a path as the ref", `{"ref_id":"../../etc/passwd"}`, tool.CodeInvalidArguments,
			`ref_id "../../etc/passwd": not a reference id (ref ids look like out_ followed by 26 letters and digits); copy it from the marker of a trimmed output`},
		{"an unknown ref", `{"ref_id":"out_aaaaaaaaaaaaaaaaaaaaaaaaaa"}`, tool.CodeInvalidArguments,
			"ref_id out_aaaaaaaaaaaaaaaaaaaaaaaaaa: no stored output with this id (this store lives in memory: the output may have been evicted to make room, or made by another process)"},
		{"an offset past the end", `{"ref_id":"` + ref + `","offset":11}`, tool.CodeInvalidArguments,
			"offset 11 is past the end: output " + ref + " has 10 lines (offsets 1 to 10)"},
		{"a negative limit", `{"ref_id":"` + ref + `","limit":-5}`, tool.CodeInvalidArguments, ""},
		{"a negative offset", `{"ref_id":"` + ref + `","offset":-1}`, tool.CodeInvalidArguments, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.run(newToolOutputCache(), c.args)
			te := tool.AsError(err)
			if te == nil || te.Code != c.code || (c.msg != "" && te.Message != c.msg) {
				t.Errorf("err = %v, want %s: %s", err, c.code, c.msg)
			}
		})
	}
}

func TestToolOutputCacheWithoutAStore(t *testing.T) {
	e := newCacheEnv(t, nil)
	_, err := e.run(newToolOutputCache(), `{"ref_id":"out_aaaaaaaaaaaaaaaaaaaaaaaaaa"}`)
	if tool.CodeOf(err) != tool.CodeExecutionFailed || !strings.Contains(err.Error(), "no output cache") {
		t.Errorf("err = %v", err)
	}
}

func TestToolOutputCacheOnAnOutputStillBeingWritten(t *testing.T) {
	e := newCacheEnv(t, outputcache.NewMemoryStore(outputcache.MemoryOptions{}))
	w, _ := e.store.Create(context.Background(), outputcache.Info{Tool: "exec_command"})
	defer w.Close()
	_, err := e.run(newToolOutputCache(), `{"ref_id":"`+w.Ref()+`"}`)
	te := tool.AsError(err)
	if te == nil || te.Code != tool.CodeExecutionFailed || !te.Retriable || !strings.Contains(te.Message, "still being written") {
		t.Errorf("err = %v", err)
	}
}

// TestToolOutputCacheKeepsReadFileNumbers: a read_file answer numbers its
// lines already; stored by the pipeline's cache step and read back, its lines
// show read_file's numbers once, not a second number in front — in a memory
// store, and in a directory store opened again as a later process would.
func TestToolOutputCacheKeepsReadFileNumbers(t *testing.T) {
	env := newFileEnv(t, t.TempDir())
	env.write("big.txt", lineRange(1, 300))
	res := env.runOK(newReadFile(), `{"path":"big.txt","offset":100,"limit":150}`)
	dir := t.TempDir()
	stores := map[string]func() outputcache.Store{
		"memory": func() outputcache.Store { return outputcache.NewMemoryStore(outputcache.MemoryOptions{}) },
		"dir": func() outputcache.Store {
			s, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			store := open()
			trimmed, err := outputcache.Trim(context.Background(), store, outputcache.Budget{MaxLines: 20}, "read_file", "c1", res)
			if err != nil || trimmed.OutputRef == "" {
				t.Fatalf("read_file's answer was not stored: ref %q, %v", trimmed.OutputRef, err)
			}
			if name == "dir" {
				store = open() // a later process
			}
			got, err := newCacheEnv(t, store).run(newToolOutputCache(), jsonArgs(map[string]any{"ref_id": trimmed.OutputRef, "offset": 3, "limit": 2}))
			if err != nil {
				t.Fatal(err)
			}
			want := "   102\tline 102\n   103\tline 103\n(stored lines (numbered by read_file) 3-4 of 151; continue with offset=5)"
			if diff := cmp.Diff(want, got.String()); diff != "" {
				t.Errorf("tool_output_cache view (-want +got):\n%s", diff)
			}
		})
	}
}
