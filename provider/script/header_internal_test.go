package script

import (
	"regexp"
	"strings"
	"testing"
)

// paramNamePattern is the regular expression validParamName replaces.
var paramNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// TestValidParamNameIsTheRegexp checks validParamName against the regular
// expression it replaces: every string of up to three characters over an
// alphabet with each class's edges and its neighbours, and names around
// the length limit.
func TestValidParamNameIsTheRegexp(t *testing.T) {
	alphabet := []string{"", "a", "z", "A", "Z", "_", "-", "0", "9", "@", "[", "`", "{", "/", ":", ".", " ",
		"\n", "\x00", "\xff", "é", "\u212a"} // U+212A KELVIN SIGN folds to k
	var names []string
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				names = append(names, a+b+c)
			}
		}
	}
	for _, n := range []int{62, 63, 64, 65, 100} {
		for _, first := range []string{"a", "_", "-", "0"} {
			for _, last := range []string{"", "b", "-", "9", "\n", "."} {
				names = append(names, first+strings.Repeat("x", n-1)+last)
			}
		}
	}
	for _, name := range names {
		if got, want := validParamName(name), paramNamePattern.MatchString(name); got != want {
			t.Errorf("validParamName(%q) = %v, the regular expression says %v", name, got, want)
		}
	}
}

func FuzzValidParamName(f *testing.F) {
	for _, s := range []string{"path", "_x", "a-b", "9a", "-a", "a b", "a\n", strings.Repeat("a", 64), strings.Repeat("a", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := validParamName(name), paramNamePattern.MatchString(name); got != want {
			t.Errorf("validParamName(%q) = %v, the regular expression says %v", name, got, want)
		}
	})
}
