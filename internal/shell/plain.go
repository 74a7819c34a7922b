package shell

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ErrNotPlain is what [PlainLine] wraps: the line does more than run its
// simple commands' words.
var ErrNotPlain = errors.New("the line does more than run its commands")

// PlainLine reports, as nil, whether line does nothing but run simple
// commands whose every word is literal, joined by pipes, &&, || or ;, so
// that the words of its commands ([SimpleCommands]) say all it does. It is
// an allowlist of shapes; anything else is an error wrapping [ErrNotPlain]
// and naming it:
//
//   - a redirection that may write a file: all but reads, here-documents,
//     descriptor duplications (2>&1, >&-) and writes to /dev/null (the
//     read-only classifier's list); a rule naming `make -s test` never
//     names `>> .git/config`;
//   - a variable assignment, alone or before a command (PATH=. make):
//     it changes which program a word runs;
//   - a compound command (subshell, block, if, for, while, case), a
//     function definition, a declaration, let, [[ ]], arithmetic, coproc,
//     time, a background (&) or negated (!) command: each can change
//     what the words mean or what runs;
//   - a word that is not literal ($X, $(...), a glob).
//
// A remembered "always allow" covers a line only when it is plain: the
// person approved the words they read, nothing else.
func PlainLine(line string) error {
	f, err := Parse(line)
	if err != nil {
		return err
	}
	for _, st := range f.Stmts {
		if err := plainStmt(st); err != nil {
			return err
		}
	}
	return nil
}

func plainStmt(st *syntax.Stmt) error {
	switch {
	case st.Background || st.Coprocess || st.Disown:
		return notPlain("a command run in the background")
	case st.Negated:
		return notPlain("a negated command (!)")
	}
	for _, r := range st.Redirs {
		if err := plainRedirect(r); err != nil {
			return err
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 {
			return notPlain("the variable assignment " + c.Assigns[0].Name.Value + "=")
		}
		for _, w := range c.Args {
			if _, err := Unquote(w); err != nil {
				return notPlain(fmt.Sprintf("the word %s (%v)", printNode(w), err))
			}
		}
		return nil
	case *syntax.BinaryCmd:
		if err := plainStmt(c.X); err != nil {
			return err
		}
		return plainStmt(c.Y)
	case nil:
		return notPlain("a line with no command")
	}
	return notPlain(strings.TrimSpace(strings.SplitN(printNode(st.Cmd), "\n", 2)[0]))
}

func plainRedirect(r *syntax.Redirect) error {
	if safeRedirect(r) {
		return nil
	}
	return notPlain("the redirection " + printNode(r))
}

func notPlain(what string) error {
	return fmt.Errorf("%w: %s", ErrNotPlain, what)
}
