package outputcache

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarker(t *testing.T) {
	tests := []struct {
		name         string
		lines, bytes int64
		kept         Kept
		want         string
	}{
		{"lines and bytes, in the cache", 48210, 2811403, Kept{Ref: "out_x"},
			"[... 48210 lines (2811403 bytes) omitted; full output: ref=out_x, read it with tool_output_cache or search it with tool_output_cache_grep ...]"},
		{"lines not counted, in a file", -1, 900, Kept{File: "exec-1.log"},
			"[... 900 bytes omitted; full output in the file exec-1.log, for the host: commands cannot read it ...]"},
		{"in a file that holds the output's start", 10, 900, Kept{File: "exec-1.out", Partial: 500},
			"[... 10 lines (900 bytes) omitted; the output's first 500 bytes in the file exec-1.out (the rest was not kept), for the host: commands cannot read it ...]"},
		{"part of one line", 0, 77, Kept{Err: errors.New("disk full")},
			"[... 0 lines (77 bytes) omitted; the full output could not be kept: disk full ...]"},
		{"only long lines clipped", 0, 0, Kept{NoStore: true},
			"[... long lines clipped; the output cache is off, so the full output was not kept ...]"},
		{"kept nowhere, no reason", 3, 30, Kept{},
			"[... 3 lines (30 bytes) omitted; the full output was not kept ...]"},
		{"a ref wins over an error", 1, 2, Kept{Ref: "out_y", Err: errors.New("late close")},
			"[... 1 lines (2 bytes) omitted; full output: ref=out_y, read it with tool_output_cache or search it with tool_output_cache_grep ...]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Marker(tt.lines, tt.bytes, tt.kept)); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestBudgetSplit(t *testing.T) {
	tests := []struct {
		name   string
		budget Budget
		want   Split
	}{
		// What exec_command always kept under the default budget.
		{"default", Budget{}, Split{HeadBytes: 24 << 10, TailBytes: 16 << 10, HeadLines: 1000, TailLines: 800}},
		{"small", Budget{MaxBytes: 4000, MaxLines: 100}, Split{HeadBytes: 1920, TailBytes: 1280, HeadLines: 50, TailLines: 40}},
		{"room for the status line and marker first", Budget{MaxBytes: 1000, MaxLines: 20}, Split{HeadBytes: 292, TailBytes: 196, HeadLines: 9, TailLines: 8}},
		{"smaller than the room", Budget{MaxBytes: 100, MaxLines: 2}, Split{HeadBytes: 0, TailBytes: 0, HeadLines: 1, TailLines: 1}},
		{"no limit is still bounded", Budget{MaxBytes: -1, MaxLines: -1},
			Split{HeadBytes: unlimitedSplit * 3 / 5, TailBytes: unlimitedSplit - unlimitedSplit*3/5, HeadLines: unlimitedSplit * 5 / 9, TailLines: unlimitedSplit - unlimitedSplit*5/9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.budget.Split()); diff != "" {
				t.Error(diff)
			}
		})
	}
}
