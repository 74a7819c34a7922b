package driver

import (
	"errors"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestMemo(t *testing.T) {
	s := &jsonschema.Schema{Type: "object"}
	calls := 0
	build := func(*jsonschema.Schema) (int, error) { calls++; return calls, nil }
	a, _ := Memo(s, "x", build)
	b, _ := Memo(s, "x", build)
	c, _ := Memo(s, "y", build)
	d, _ := Memo(&jsonschema.Schema{Type: "object"}, "x", build)
	if a != 1 || b != 1 || c != 2 || d != 3 {
		t.Errorf("got %d %d %d %d: one build per schema pointer and dialect", a, b, c, d)
	}
	fail := errors.New("no")
	if _, err := Memo(s, "z", func(*jsonschema.Schema) (int, error) { return 0, fail }); err != fail {
		t.Errorf("err = %v", err)
	}
	if v, err := Memo(s, "z", build); err != nil || v != 4 {
		t.Errorf("an error was remembered: %d %v", v, err)
	}
}

// A schema that is gone takes its conversions with it.
func TestMemoForgetsCollectedSchemas(t *testing.T) {
	s := &jsonschema.Schema{Type: "object", Description: "temporary"}
	key := weak.Make(s)
	if _, err := Memo(s, "x", func(*jsonschema.Schema) (int, error) { return 1, nil }); err != nil {
		t.Fatal(err)
	}
	s = nil
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if _, ok := memo.Load(key); !ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the memo still holds a collected schema's entry")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
