package quiver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
)

// TestInvokeAllRunsReadsConcurrentlyAndWritesAlone records, for every call,
// how many calls were running at once: reads overlap, a write never does.
func TestInvokeAllRunsReadsConcurrentlyAndWritesAlone(t *testing.T) {
	var running, peak atomic.Int32
	var mu sync.Mutex
	overlapDuringWrite := false
	track := func(write bool) func() {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if write && n > 1 {
			mu.Lock()
			overlapDuringWrite = true
			mu.Unlock()
		}
		return func() { running.Add(-1) }
	}
	read := tool.Func("slow_read", "reads", func(_ context.Context, _ tool.Context, in echoInput) (echoOutput, error) {
		defer track(false)()
		time.Sleep(30 * time.Millisecond)
		return echoOutput{Text: in.Text}, nil
	}, tool.ReadOnly())
	write := tool.Func("slow_write", "writes", func(_ context.Context, _ tool.Context, in echoInput) (echoOutput, error) {
		defer track(true)()
		time.Sleep(10 * time.Millisecond)
		if running.Load() > 1 {
			mu.Lock()
			overlapDuringWrite = true
			mu.Unlock()
		}
		return echoOutput{Text: in.Text}, nil
	})
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithTools(read, write),
		quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	var calls []driver.ToolCall
	names := []string{"slow_read", "slow_read", "slow_read", "slow_write", "slow_read", "slow_read", "nope", "slow_write"}
	for i, n := range names {
		calls = append(calls, driver.ToolCall{ID: fmt.Sprint("c", i), Name: n, Arguments: json.RawMessage(fmt.Sprintf(`{"text":"%d"}`, i))})
	}
	outs := tk.InvokeAll(context.Background(), calls)
	for i, o := range outs {
		if o.CallID != calls[i].ID {
			t.Errorf("output %d has call id %s", i, o.CallID)
		}
		if names[i] == "nope" {
			if tool.CodeOf(o.Err) != tool.CodeToolNotFound {
				t.Errorf("output %d: %v", i, o.Err)
			}
			continue
		}
		if o.Err != nil || o.Content.Output.(echoOutput).Text != fmt.Sprint(i) {
			t.Errorf("output %d = %v, %v", i, o.Content.Output, o.Err)
		}
	}
	if peak.Load() < 2 {
		t.Errorf("reads never overlapped (peak %d)", peak.Load())
	}
	if overlapDuringWrite {
		t.Error("a write ran beside another call")
	}
}

func TestInvokeConcurrentCallsAreSafe(t *testing.T) {
	tk, _, sink := newToolkit(t)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := tk.Invoke(context.Background(), "read_file", map[string]any{"path": "notes.txt"}); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, r := range sink.Records() {
		if seen[r.CallID] {
			t.Errorf("call id %s reused", r.CallID)
		}
		seen[r.CallID] = true
	}
	if len(seen) != 50 {
		t.Errorf("%d audit records, want 50", len(seen))
	}
}
