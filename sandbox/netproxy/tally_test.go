package netproxy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/sandbox/netproxy"
)

// TestTally: requests alike are one entry with a count, in the order first
// made; beyond Max entries only a count is kept; Take empties the tally
// and Merge adds another's, counts and all, within its own Max; a nil
// Tally counts nothing.
func TestTally(t *testing.T) {
	a := netproxy.Contact{Host: "a.test", Port: "80", Method: "GET", Allowed: true}
	b := netproxy.Contact{Host: "b.test", Port: "443", Method: "CONNECT", Refused: "b.test is not listed"}
	c := netproxy.Contact{Host: "c.test", Port: "80", Method: "GET", Allowed: true}
	type want struct {
		counts  []netproxy.Count
		omitted int
	}
	for _, tt := range []struct {
		name   string
		max    int
		record []netproxy.Contact
		merge  want
		want   want
	}{
		{"alike counted once", 0, []netproxy.Contact{a, b, a}, want{},
			want{[]netproxy.Count{{a, 2}, {b, 1}}, 0}},
		{"beyond Max a count", 2, []netproxy.Contact{a, b, c, c, a}, want{},
			want{[]netproxy.Count{{a, 2}, {b, 1}}, 2}},
		{"a merge adds counts and omitted", 2, []netproxy.Contact{a}, want{[]netproxy.Count{{a, 3}, {c, 5}, {b, 1}}, 4},
			want{[]netproxy.Count{{a, 4}, {c, 5}}, 5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tally := &netproxy.Tally{Max: tt.max}
			for _, c := range tt.record {
				tally.Record(c)
			}
			tally.Merge(tt.merge.counts, tt.merge.omitted)
			counts, omitted := tally.Take()
			if diff := cmp.Diff(tt.want, want{counts, omitted}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if counts, omitted := tally.List(); len(counts) != 0 || omitted != 0 {
				t.Errorf("after Take: %v, %d", counts, omitted)
			}
		})
	}
	var none *netproxy.Tally
	none.Record(a)
	none.Merge([]netproxy.Count{{a, 1}}, 1)
	if counts, omitted := none.Take(); counts != nil || omitted != 0 {
		t.Errorf("a nil tally: %v, %d", counts, omitted)
	}
}
