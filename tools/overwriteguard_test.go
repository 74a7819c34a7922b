package tools

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/quiverkit/quiver/tool"
)

func TestReadTrackerRecordsLatestHashPerPath(t *testing.T) {
	rt := NewReadTracker()
	if _, ok := rt.Seen("a.txt"); ok {
		t.Fatal("an empty tracker has seen a.txt")
	}
	rt.Record("dir/../a.txt", "111")
	rt.Record("./a.txt", "222")
	if sum, ok := rt.Seen("a.txt"); !ok || sum != "222" {
		t.Errorf("Seen(a.txt) = %q, %v; want the latest hash under the cleaned path", sum, ok)
	}
}

func TestReadTrackerIsSafeForConcurrentUse(t *testing.T) {
	rt := NewReadTracker()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				p := fmt.Sprintf("f%d", j%10)
				rt.Record(p, fmt.Sprint(i))
				rt.Seen(p)
			}
		}()
	}
	wg.Wait()
	for j := range 10 {
		if _, ok := rt.Seen(fmt.Sprintf("f%d", j)); !ok {
			t.Errorf("f%d not recorded", j)
		}
	}
}

// TestReadTrackerIsSharedAcrossCalls: what one call records, the next call
// of the same toolkit sees; another toolkit (scope) does not.
func TestReadTrackerIsSharedAcrossCalls(t *testing.T) {
	if !ReadTrackerKey.Shared {
		t.Fatal("ReadTrackerKey must be shared, or reads would be forgotten between calls")
	}
	env := newFileEnv(t, t.TempDir())
	ctx := context.Background()
	recordRead(ctx, env.context("read_file"), "x.go", "abc")
	if sum, ok := seenSum(ctx, env.context("write_file"), "x.go"); !ok || sum != "abc" {
		t.Errorf("the next call sees %q, %v", sum, ok)
	}
	other := tool.NewContext("c", "write_file", nil, tool.NewScope(nil, tool.NewScope(nil, nil)))
	if _, ok := seenSum(ctx, other, "x.go"); ok {
		t.Error("another toolkit saw the read")
	}
}
