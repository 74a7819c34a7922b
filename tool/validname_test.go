package tool

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidNameIsThePattern: ValidName's loop accepts exactly what the
// pattern it replaced accepts, for every name of up to three characters
// over an alphabet of each class's edges and neighbours, and around the
// length limit.
func TestValidNameIsThePattern(t *testing.T) {
	re := regexp.MustCompile(namePattern)
	const alphabet = "aAzZ09_-./:@[`{\x00\xff é"
	var names []string
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		names = append(names, prefix)
		if n == 0 {
			return
		}
		for _, r := range alphabet {
			grow(prefix+string(r), n-1)
		}
	}
	grow("", 3)
	for _, n := range []int{63, 64, 65} {
		names = append(names, strings.Repeat("a", n), strings.Repeat("a", n-1)+"é")
	}
	for _, name := range names {
		if got, want := ValidName(name), re.MatchString(name); got != want {
			t.Errorf("ValidName(%q) = %v, the pattern says %v", name, got, want)
		}
	}
}

func FuzzValidName(f *testing.F) {
	re := regexp.MustCompile(namePattern)
	for _, s := range []string{"read_file", "", "a-b", "a b", strings.Repeat("x", 65), "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := ValidName(name), re.MatchString(name); got != want {
			t.Errorf("ValidName(%q) = %v, the pattern says %v", name, got, want)
		}
	})
}
