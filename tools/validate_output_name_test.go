package tools

import (
	"regexp"
	"strings"
	"testing"
)

// outputTypeNamePattern is the regular expression validOutputTypeName
// replaces.
var outputTypeNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// TestValidOutputTypeNameIsTheRegexp checks validOutputTypeName against the
// regular expression it replaces: every string of up to three characters
// over an alphabet with each class's edges and its neighbours, and names
// around the length limit.
func TestValidOutputTypeNameIsTheRegexp(t *testing.T) {
	alphabet := []string{"", "a", "z", "A", "Z", "_", "-", ".", "0", "9", "@", "[", "`", "{", "/", ":", ",", " ",
		"\n", "\x00", "\xff", "é", "\u212a"} // U+212A KELVIN SIGN folds to k
	var names []string
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				names = append(names, a+b+c)
			}
		}
	}
	for _, n := range []int{63, 64, 65, 100} {
		for _, last := range []string{"", "b", "-", "9", "\n", "/"} {
			names = append(names, strings.Repeat("x", n-1)+last)
		}
	}
	for _, name := range names {
		if got, want := validOutputTypeName(name), outputTypeNamePattern.MatchString(name); got != want {
			t.Errorf("validOutputTypeName(%q) = %v, the regular expression says %v", name, got, want)
		}
	}
}

func FuzzValidOutputTypeName(f *testing.F) {
	for _, s := range []string{"report", "a.b-c_d", "9", "", "a b", "a\n", strings.Repeat("a", 64), strings.Repeat("a", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := validOutputTypeName(name), outputTypeNamePattern.MatchString(name); got != want {
			t.Errorf("validOutputTypeName(%q) = %v, the regular expression says %v", name, got, want)
		}
	})
}
