package outputcache

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Every way of finding a literal finds the same first match as bytes.Index,
// on data whose small alphabet makes candidates and near misses common.
func TestMatcherFindModesAgreeWithBytesIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab \nc")
	for trial := range 300 {
		data := make([]byte, 50+r.IntN(3000))
		for i := range data {
			data[i] = alphabet[r.IntN(len(alphabet))]
		}
		pat := make([]byte, 1+r.IntN(6))
		for i := range pat {
			pat[i] = alphabet[r.IntN(3)]
		}
		want := bytes.Index(data, pat)
		for _, mode := range []int{findIndex, findRare, findPair} {
			if mode != findIndex && len(pat) < 2 {
				continue
			}
			m := &matcher{literal: pat, mode: mode, k1: r.IntN(len(pat))}
			m.k2 = (m.k1 + 1) % len(pat)
			if got, _ := m.find(data); got != want {
				t.Fatalf("trial %d, mode %d, %q in %d bytes: %d, want %d", trial, mode, pat, len(data), got, want)
			}
		}
	}
}

func TestMatcherTuneChoosesByFrequency(t *testing.T) {
	sample := bytes.Repeat([]byte("return the error err\n"), 100)
	cases := []struct {
		pattern  string
		mode, k1 int
	}{
		{"return err", findPair, 3},  // 'u' is the rarest byte, but common
		{"return Zerr", findRare, 7}, // 'Z' never occurs
		{"x", findIndex, 0},
	}
	for _, c := range cases {
		m, err := newMatcher(c.pattern, false)
		if err != nil {
			t.Fatal(err)
		}
		m.tune(sample)
		if m.mode != c.mode || m.k1 != c.k1 {
			t.Errorf("%q: mode %d at %d, want %d at %d", c.pattern, m.mode, m.k1, c.mode, c.k1)
		}
	}
}

func TestCountParallelAgreesWithCount(t *testing.T) {
	data := []byte(numbered(30000))
	for _, p := range []string{"line 7", "99", "line"} {
		m, _ := newMatcher(p, false)
		m.tune(data)
		if a, b := m.count(data), m.countParallel(data); a != b {
			t.Errorf("%q: count %d, parallel %d", p, a, b)
		}
	}
}
