package edit

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzMatch checks the matcher's promises on any input: it never panics; it
// either fails with one of its documented errors or returns sorted, disjoint
// changes inside the text whose diff, applied by go-gitdiff, gives the
// edited text; and an old_string that occurs exactly once is an exact edit.
func FuzzMatch(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B", false)
	f.Add("\tif x {\n\t\treturn\n\t}\n", "    if x {\n        return\n    }", "    if y {\n        return\n    }", false)
	f.Add("x  =  1\n", "x = 1", "x = 2", true)
	f.Add("f(\"a\")\n", `f(\"a\")`, `f(\"b\")`, false)
	f.Fuzz(func(t *testing.T, text, old, new string, replaceAll bool) {
		m, err := Find(text, Edit{Old: old, New: new, ReplaceAll: replaceAll})
		if err != nil {
			checkErrorKind(t, err)
			if old != "" && old != new && strings.Count(text, old) == 1 {
				t.Fatalf("old_string occurs once, but Find failed: %v", err)
			}
			return
		}
		if !slices.Contains(Strategies, m.Strategy) || len(m.Lines) != len(m.Changes) {
			t.Fatalf("bad match %+v", m)
		}
		at := 0
		for _, c := range m.Changes {
			if c.Off < at || c.Len < 0 || c.Off+c.Len > len(text) {
				t.Fatalf("changes out of order or out of bounds: %+v (text %d bytes)", m.Changes, len(text))
			}
			if m.Strategy == Exact && text[c.Off:c.Off+c.Len] != old {
				t.Fatalf("exact change covers %q, not old_string", text[c.Off:c.Off+c.Len])
			}
			at = c.Off + c.Len
		}
		result := Apply(text, m.Changes)
		if strings.Count(text, old) == 1 {
			if want := strings.Replace(text, old, new, 1); m.Strategy != Exact || result != want {
				t.Fatalf("unique old_string: strategy %s gives %q, want exact %q", m.Strategy, result, want)
			}
		}
		checkDiffApplies(t, text, Unified("a/f", "b/f", text, m.Changes), result)
	})
}

func checkErrorKind(t *testing.T, err error) {
	t.Helper()
	var amb *AmbiguousError
	var cnt *CountError
	var nf *NotFoundError
	var un *UnchangedError
	if !errors.Is(err, ErrEmptyOld) && !errors.Is(err, ErrNoChange) && !errors.As(err, &un) &&
		!errors.As(err, &amb) && !errors.As(err, &cnt) && !errors.As(err, &nf) {
		t.Fatalf("undocumented error %T: %v", err, err)
	}
	if errors.As(err, &amb) && len(amb.Lines) < 2 {
		t.Fatalf("ambiguous with %d lines", len(amb.Lines))
	}
}

// FuzzCompose checks that composing the changes of several edits made one
// after another gives the same text as making them, and a diff that applies.
// The steps are derived from ops: each group of three bytes is an offset, a
// length and a replacement length, clamped to the current text.
func FuzzCompose(f *testing.F) {
	f.Add("one\ntwo\nthree\n", []byte{0, 3, 2, 4, 0, 5, 1, 1, 0})
	f.Add("", []byte{0, 0, 7})
	f.Add("abc", []byte{1, 1, 3, 0, 9, 0})
	f.Fuzz(func(t *testing.T, orig string, ops []byte) {
		cur := orig
		var steps [][]Change
		for i := 0; i+2 < len(ops) && len(steps) < 20; i += 3 {
			off := int(ops[i]) % (len(cur) + 1)
			n := int(ops[i+1]) % (len(cur) - off + 1)
			ins := strings.Repeat(string(rune('A'+i%26))+"\n", int(ops[i+2])%4)
			step := []Change{{Off: off, Len: n, New: ins}}
			steps = append(steps, step)
			cur = Apply(cur, step)
		}
		composed := Compose(len(orig), steps...)
		if got := Apply(orig, composed); got != cur {
			t.Fatalf("composed changes give %q, sequential edits %q (%+v)", got, cur, composed)
		}
		checkDiffApplies(t, orig, Unified("a/f", "b/f", orig, composed), cur)
	})
}
