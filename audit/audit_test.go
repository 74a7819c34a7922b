package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"
)

func TestJSONLinesWritesOneLinePerRecord(t *testing.T) {
	var buf bytes.Buffer
	sink := NewJSONLines(&buf)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sink.Record(context.Background(), Record{Time: time.Unix(0, 0).UTC(), CallID: "c", Tool: "read_file", Outcome: "ok", OutputSize: i})
		}()
	}
	wg.Wait()
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 20 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		var r map[string]any
		if err := json.Unmarshal(l, &r); err != nil || r["tool"] != "read_file" || r["call_id"] != "c" {
			t.Fatalf("line %q: %v", l, err)
		}
		for _, k := range []string{"time", "duration_ms", "outcome", "output_size"} {
			if _, ok := r[k]; !ok {
				t.Errorf("line lacks %s: %s", k, l)
			}
		}
	}
}

func TestMemory(t *testing.T) {
	var m Memory
	m.Record(context.Background(), Record{Tool: "a"})
	m.Record(context.Background(), Record{Tool: "b"})
	if r := m.Records(); len(r) != 2 || r[1].Tool != "b" {
		t.Errorf("records %+v", r)
	}
	if err := Discard.Record(context.Background(), Record{}); err != nil {
		t.Error(err)
	}
}
