package shell

import (
	"errors"
	"testing"
)

func TestPlainLine(t *testing.T) {
	for _, c := range []struct {
		name, line string
		plain      bool
	}{
		{"plain: one command", "make -s test", true},
		{"plain: a list and a pipe", "make -s test && go vet ./... | cat; true || false", true},
		{"plain: stderr joined to stdout", "make -s test 2>&1", true},
		{"plain: output thrown away", "make -s test >/dev/null 2>&1", true},
		{"plain: a read", "make -s test < input.txt", true},
		{"plain: quoted words", "'make' \"-s\" test", true},
		{"not plain: append to .git/config", "make -s test >> .git/config", false},
		{"not plain: truncate", "make -s test > out", false},
		{"not plain: clobber", "make -s test >| out", false},
		{"not plain: read-write", "make -s test <> out", false},
		{"not plain: both streams", "make -s test &> out", false},
		{"not plain: both streams appended", "make -s test &>> out", false},
		{"not plain: >& to a file", "make -s test >& out", false},
		{"not plain: a redirection before the command", "> .git/config make -s test", false},
		{"not plain: a redirection in the second command", "true && make -s test 2> .git/config", false},
		{"not plain: exec opens a descriptor", "exec 3> .git/config", false},
		{"not plain: an assignment before the command", "PATH=. make -s test", false},
		{"not plain: an assignment alone", "PATH=.; make -s test", false},
		{"not plain: a for loop sets a variable", "for PATH in .; do make -s test; done", false},
		{"not plain: a function shadows the program", "make() { rm -rf x; }; make -s test", false},
		{"not plain: a subshell", "(make -s test)", false},
		{"not plain: a block with a redirection", "{ make -s test; } > .git/config", false},
		{"not plain: background", "make -s test &", false},
		{"not plain: an expansion", "make -s $T", false},
		{"not plain: a command substitution", "make -s $(echo test)", false},
		{"not plain: a glob", "make -s tes*", false},
		{"not plain: a declaration", "export PATH=.", false},
		{"plain: an empty line runs nothing", "", true},
	} {
		err := PlainLine(c.line)
		if (err == nil) != c.plain {
			t.Errorf("%s: PlainLine(%q) = %v", c.name, c.line, err)
		}
		if err != nil && c.line != "" && !errors.Is(err, ErrNotPlain) {
			t.Errorf("%s: error %v does not wrap ErrNotPlain", c.name, err)
		}
	}
	var se *SyntaxError
	if err := PlainLine("make 'x"); !errors.As(err, &se) {
		t.Errorf("an unclosed quote: %v, want a *SyntaxError", err)
	}
}
