package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSimpleCommands(t *testing.T) {
	cases := []struct {
		line string
		want []string
	}{
		{"git status && rm -rf x", []string{"git status", "rm -rf x"}},
		{"a | b || c; d &", []string{"a", "b", "c", "d"}},
		{"git status; $(echo rm) -rf x", []string{"git status", "$(echo rm) -rf x", "echo rm"}},
		{`eval "rm -rf x"`, []string{"eval rm -rf x", "rm -rf x"}},
		{"X=rm; $X -rf x", []string{"$X -rf x"}},
		{"echo `id` 'a b' \"c\"", []string{"echo $(id) a b c", "id"}},
		{"(cd a; ls) > out", []string{"cd a", "ls"}},
		{"{ a; b; }", []string{"a", "b"}},
		{"export A=$(whoami)", []string{"export A=$(whoami)", "whoami"}},
		{"for f in x; do cat $f; done", []string{"cat $f"}},
		{"if test -f x; then rm x; fi", []string{"test -f x", "rm x"}},
		{"ls <(rm x)", []string{"ls <(rm x)", "rm x"}},
		{`r\m -rf x`, []string{"rm -rf x"}},
		{"f() { rm x; }; f", []string{"rm x", "f"}},
		{"sh -c 'rm x' && env A=1 ls", []string{"sh -c rm x", "rm x", "env A=1 ls", "ls"}},
	}
	for _, c := range cases {
		cmds, err := SimpleCommands(c.line)
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		var got []string
		for _, x := range cmds {
			got = append(got, x.String())
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.line, diff)
		}
	}
	if _, err := SimpleCommands("echo 'unterminated"); err == nil {
		t.Error("a syntax error was accepted")
	}
}

func TestLiteral(t *testing.T) {
	for line, want := range map[string]bool{"git status": true, "ls *.go": false, "echo $HOME": false, `echo "a b"`: true} {
		cmds, err := SimpleCommands(line)
		if err != nil || cmds[0].Literal != want {
			t.Errorf("%q: literal = %v, want %v (%v)", line, cmds[0].Literal, want, err)
		}
	}
}

func FuzzSimpleCommands(f *testing.F) {
	for _, s := range []string{"git status && rm -rf x", "a | b", "$(x) `y`", "f() { g; }", "case x in a) b;; esac", "echo 'x", "<<EOF\nx\nEOF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmds, err := SimpleCommands(line)
		if err != nil {
			return
		}
		for _, c := range cmds {
			if len(c.Words) == 0 {
				t.Fatalf("%q: empty command", line)
			}
		}
	})
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"git status", "git status", true},
		{"git status", "git status -s", false},
		{"go test *", "go test ./... -v", true},
		{"*", "", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"?s", "ls", true},
		{"rm *", "rm", false},
	} {
		if got := globMatch(c.pattern, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pattern, c.s, got)
		}
	}
}
