package outputcache

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/trim/NAME.golden, refs replaced by REF.
func golden(t *testing.T, name, got, ref string) {
	t.Helper()
	if ref != "" {
		got = strings.ReplaceAll(got, ref, "REF")
	}
	path := filepath.Join("testdata", "trim", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestTrimViews(t *testing.T) {
	small := Budget{MaxBytes: 400, MaxLines: 9, MaxLineLength: 40}
	cases := []struct {
		name   string
		budget Budget
		res    tool.Result
	}{
		{"too-many-lines", small, tool.Text(numbered(100))},
		{"too-many-bytes", Budget{MaxBytes: 300, MaxLines: 1000, MaxLineLength: 1000}, tool.Text(strings.Repeat(strings.Repeat("b", 50)+"\n", 20))},
		{"long-line-only", small, tool.Text("short\n" + strings.Repeat("é", 100) + "\nshort again")},
		{"long-lines-in-head-and-tail", small, tool.Text(strings.Repeat(strings.Repeat("l", 60)+"\n", 30))},
		{"json-is-indented", Budget{MaxBytes: 200, MaxLines: 8, MaxLineLength: 100},
			tool.JSON(map[string]any{"files": strings.Split(strings.Repeat("alpha.go beta.go gamma.go delta.go epsilon.go zeta.go eta.go theta.go ", 3)+"last.go", " ")})},
		{"image-kept", small, tool.Result{Parts: []tool.Part{{Type: tool.PartText, Text: numbered(30)}, tool.Image("image/png", []byte("PNGDATA"))}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewMemoryStore(MemoryOptions{})
			got, err := Trim(context.Background(), s, c.budget, "exec_command", "call_1", c.res)
			if err != nil {
				t.Fatal(err)
			}
			if !ValidRef(got.OutputRef) {
				t.Fatalf("OutputRef = %q", got.OutputRef)
			}
			golden(t, c.name, got.String(), got.OutputRef)
			if n := len(got.Parts[0].Text); n > c.budget.MaxBytes {
				t.Errorf("view is %d bytes, budget %d", n, c.budget.MaxBytes)
			}
			if n := countLines(got.Parts[0].Text); n > c.budget.MaxLines {
				t.Errorf("view is %d lines, budget %d", n, c.budget.MaxLines)
			}
		})
	}
}

func TestTrimLeavesResultsWithinBudgetAlone(t *testing.T) {
	cases := []struct {
		name string
		tool string
		res  tool.Result
	}{
		{"small text", "exec_command", tool.Text("ok\n")},
		{"compact JSON longer than a line but within the bytes", "list_files", tool.JSON(strings.Repeat("x", 10000))},
		{"an image of any size", "read_file", tool.Result{Parts: []tool.Part{tool.Image("image/png", make([]byte, 1<<20))}}},
		{"tool_output_cache's own answer", ReadTool, tool.Text(numbered(5000))},
		{"tool_output_cache_grep's own answer", GrepTool, tool.Text(numbered(5000))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewMemoryStore(MemoryOptions{})
			got, err := Trim(context.Background(), s, Budget{}, c.tool, "call_1", c.res)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.res, got, cmp.Comparer(bytes.Equal)); diff != "" {
				t.Errorf("changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTrimStoresTheWholeOutputAndTheNeedleInTheMiddle(t *testing.T) {
	var sb strings.Builder
	for i := 1; i <= 100000; i++ {
		if i == 50000 {
			sb.WriteString("the NEEDLE in the middle\n")
			continue
		}
		fmt.Fprintf(&sb, "output line %d\n", i)
	}
	full := sb.String()
	s := NewMemoryStore(MemoryOptions{TempDir: t.TempDir()})
	type typed struct{ N int }
	res := tool.Text(full)
	res.Output = typed{N: 7}
	got, err := Trim(context.Background(), s, Budget{}, "exec_command", "call_1", res)
	if err != nil {
		t.Fatal(err)
	}
	view := got.Parts[0].Text
	if strings.Contains(view, "NEEDLE") || !strings.Contains(view, "output line 1\n") || !strings.HasSuffix(view, "output line 100000") {
		t.Errorf("view lacks the head or the tail, or shows the middle")
	}
	if len(view) > 50<<10 || countLines(view) > 2000 {
		t.Errorf("view is %d bytes, %d lines", len(view), countLines(view))
	}
	if got.Output != res.Output {
		t.Errorf("typed output changed: %v", got.Output)
	}
	out, err := s.Open(context.Background(), got.OutputRef)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if out.Tool != "exec_command" || out.CallID != "call_1" || out.Size != int64(len(full)) {
		t.Errorf("stored %+v", out.Meta)
	}
	found, err := out.Grep(context.Background(), GrepOptions{Pattern: "NEEDLE"})
	if err != nil || found.Matches != 1 || found.Groups[0][0].N != 50000 {
		t.Errorf("needle: %+v, %v", found, err)
	}
	marker := fmt.Sprintf("bytes) omitted; full output: ref=%s, read it with tool_output_cache or search it with tool_output_cache_grep ...]", got.OutputRef)
	if !strings.Contains(view, marker) {
		t.Errorf("view lacks the marker %q", marker)
	}
}

func TestTrimStoresImagesWhole(t *testing.T) {
	s := NewMemoryStore(MemoryOptions{})
	res := tool.Result{Parts: []tool.Part{{Type: tool.PartText, Text: numbered(3000)}, tool.Image("image/png", []byte{0, 1, 2, 250})}}
	got, err := Trim(context.Background(), s, Budget{}, "mcp__shot", "c", res)
	if err != nil {
		t.Fatal(err)
	}
	if last := got.Parts[len(got.Parts)-1]; last.Type != tool.PartImage || string(last.Data) != "\x00\x01\x02\xfa" {
		t.Errorf("image not kept in the view: %+v", last)
	}
	stored := readAll(t, s, got.OutputRef)
	if !strings.HasSuffix(stored, "\n[image image/png, 4 bytes: data:image/png;base64,AAEC+g==]") {
		t.Errorf("stored output ends %q", stored[len(stored)-80:])
	}
}

func TestTrimReusesARefTheToolAlreadyMade(t *testing.T) {
	s := NewMemoryStore(MemoryOptions{})
	ref := put(t, s, numbered(5000))
	res := tool.Text(numbered(5000))
	res.OutputRef = ref
	got, err := Trim(context.Background(), s, Budget{}, "exec_command", "c", res)
	if err != nil {
		t.Fatal(err)
	}
	if got.OutputRef != ref || !strings.Contains(got.String(), "ref="+ref) {
		t.Errorf("ref %q, view mentions it: %v", got.OutputRef, strings.Contains(got.String(), ref))
	}
	s.mu.Lock()
	n := len(s.entries)
	s.mu.Unlock()
	if n != 1 {
		t.Errorf("store holds %d outputs, want the tool's one", n)
	}
}

func TestTrimWithoutAStoreSaysNothingWasKept(t *testing.T) {
	got, err := Trim(context.Background(), nil, Budget{}, "exec_command", "c", tool.Text(numbered(5000)))
	if err != nil || got.OutputRef != "" {
		t.Fatalf("ref %q, err %v", got.OutputRef, err)
	}
	if !strings.Contains(got.String(), "bytes) omitted; the output cache is off, so the full output was not kept ...]") {
		t.Errorf("marker missing from the view")
	}
}

type failingStore struct{ Store }

func (failingStore) Create(context.Context, Info) (Writer, error) {
	return nil, errors.New("disk full")
}

func TestTrimWhenStoringFailsStillTrimsAndReports(t *testing.T) {
	got, err := Trim(context.Background(), failingStore{}, Budget{}, "exec_command", "c", tool.Text(numbered(5000)))
	if err == nil || got.OutputRef != "" || len(got.Parts[0].Text) > 50<<10 {
		t.Fatalf("err %v, ref %q, view %d bytes", err, got.OutputRef, len(got.Parts[0].Text))
	}
	if !strings.Contains(got.String(), "the full output could not be kept: disk full") {
		t.Errorf("marker does not say why")
	}
}

func TestTrimToBudgetReplacesTheOldestOutputs(t *testing.T) {
	s := NewMemoryStore(MemoryOptions{})
	big := func(tag string) *tool.Result { r := tool.Text(strings.Repeat(tag, 1000)); return &r }
	read := tool.Text(strings.Repeat("r", 1000))
	msgs := []Message{
		{Size: 100},
		{Tool: "exec_command", CallID: "1", Result: big("a")},
		{Tool: ReadTool, CallID: "2", Result: &read},
		{Tool: "exec_command", CallID: "3", Result: big("c")},
		{Tool: "exec_command", CallID: "4", Result: big("d")},
	}
	n, err := TrimToBudget(context.Background(), s, msgs, 2500)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("replaced %d outputs, want 2", n)
	}
	first := msgs[1].Result
	if !strings.HasPrefix(first.String(), "[earlier output of exec_command removed to fit the context budget; full output: ref=") {
		t.Errorf("first output became %q", first.String())
	}
	if got := readAll(t, s, first.OutputRef); got != strings.Repeat("a", 1000) {
		t.Errorf("stored %d bytes", len(got))
	}
	if !strings.Contains(msgs[2].Result.String(), "tool_output_cache removed to fit the context budget; call it again") {
		t.Errorf("read answer became %q", msgs[2].Result.String())
	}
	if msgs[3].Result.String() != strings.Repeat("c", 1000) {
		t.Errorf("a newer output was replaced")
	}
	again, _ := TrimToBudget(context.Background(), s, msgs, 2500)
	if again != 0 {
		t.Errorf("second pass replaced %d", again)
	}
}

func TestTrimToBudgetNeedsAStore(t *testing.T) {
	if _, err := TrimToBudget(context.Background(), nil, nil, 10); err == nil {
		t.Error("no error without a store")
	}
}

func TestBudgetDefaults(t *testing.T) {
	want := Budget{MaxBytes: 50 << 10, MaxLines: 2000, MaxLineLength: 2000}
	if diff := cmp.Diff(want, DefaultBudget()); diff != "" {
		t.Error(diff)
	}
	if got := (Budget{MaxBytes: -1}).withDefaults(); got.MaxBytes != noLimit || got.MaxLines != 2000 {
		t.Errorf("negative is no limit: %+v", got)
	}
}

func ExampleTrim() {
	store := NewMemoryStore(MemoryOptions{})
	var sb strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	res, _ := Trim(context.Background(), store, Budget{MaxLines: 5}, "exec_command", "call_1", tool.Text(sb.String()))
	fmt.Println(strings.ReplaceAll(res.String(), res.OutputRef, "REF"))
	// Output:
	// line 1
	// line 2
	// [... 6 lines (42 bytes) omitted; full output: ref=REF, read it with tool_output_cache or search it with tool_output_cache_grep ...]
	// line 9
	// line 10
}
