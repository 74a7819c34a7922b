package driver_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/driver"
)

// script is a PullFunc that plays steps: each step's events, then its error
// or the end.
type step struct {
	events []driver.Event
	done   bool
	err    error
}

func play(steps ...step) (driver.PullFunc, *int) {
	i, closed := 0, new(int)
	return func(emit func(driver.Event)) (bool, error) {
		s := steps[i]
		i++
		for _, ev := range s.events {
			emit(ev)
		}
		return s.done, s.err
	}, closed
}

func TestStreamDeliversEveryEventBeforeItsError(t *testing.T) {
	resp := &driver.Response{Text: "hi"}
	cerr := &driver.CallError{ID: "1", Name: "n", Err: driver.ErrInvalidArguments}
	pull, _ := play(
		step{}, // a provider event that produced nothing
		step{events: []driver.Event{{Type: driver.EventTextDelta, Delta: "h"}, {Type: driver.EventTextDelta, Delta: "i"}}},
		step{events: []driver.Event{{Type: driver.EventDone, Response: resp}}, done: true, err: cerr},
	)
	closes := 0
	s := driver.NewStream(pull, func() error { closes++; return nil })
	var types []driver.EventType
	for s.Next() {
		types = append(types, s.Event().Type)
	}
	if d := cmp.Diff([]driver.EventType{driver.EventTextDelta, driver.EventTextDelta, driver.EventDone}, types); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if !errors.Is(s.Err(), driver.ErrInvalidArguments) {
		t.Errorf("Err() = %v", s.Err())
	}
	if s.Next() {
		t.Error("Next after the end returned true")
	}
	s.Close()
	s.Close()
	if closes != 1 {
		t.Errorf("close ran %d times, want 1", closes)
	}
}

func TestCollect(t *testing.T) {
	resp := &driver.Response{Text: "x"}
	tests := []struct {
		name     string
		steps    []step
		wantResp bool
		wantErr  error
	}{
		{"a whole reply", []step{{events: []driver.Event{{Type: driver.EventDone, Response: resp}}, done: true}}, true, nil},
		{"a reply with an unusable call keeps the response", []step{{events: []driver.Event{{Type: driver.EventDone, Response: resp}}, done: true,
			err: &driver.CallError{Err: driver.ErrDuplicateID}}}, true, driver.ErrDuplicateID},
		{"a transport error drops the response", []step{{err: errors.New("connection reset"), done: true}}, false, nil},
		{"an end without EventDone is truncated", []step{{done: true}}, false, driver.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pull, _ := play(tt.steps...)
			got, err := driver.Collect(driver.NewStream(pull, nil))
			if (got != nil) != tt.wantResp {
				t.Errorf("response %v, want one: %v", got, tt.wantResp)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && !tt.wantResp && err == nil {
				t.Error("no error")
			}
		})
	}
}

// FuzzParseArguments: whatever a model sends, the result is a JSON object
// equal to the trimmed input, {} for blank input only, or a *CallError.
func FuzzParseArguments(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := driver.ParseArguments("id", "name", raw)
		trimmed := strings.TrimSpace(raw)
		if err != nil {
			var ce *driver.CallError
			if !errors.As(err, &ce) || !errors.Is(err, driver.ErrInvalidArguments) || got != nil {
				t.Fatalf("error %v is not a call error, or came with %q", err, got)
			}
			return
		}
		var obj map[string]any
		if json.Unmarshal(got, &obj) != nil || obj == nil {
			t.Fatalf("%q gave %q, not a JSON object", raw, got)
		}
		if trimmed == "" && string(got) != "{}" || trimmed != "" && string(got) != trimmed {
			t.Fatalf("%q gave %q", raw, got)
		}
	})
}
