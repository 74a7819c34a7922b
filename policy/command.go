package policy

import (
	"strings"

	"github.com/quiverkit/quiver/internal/shell"
)

// SimpleCommand is one command a shell line would run: its words, literal
// where they can be known before running (quotes removed), or their source
// text where they cannot ($VAR, $(...), globs left as written).
type SimpleCommand struct {
	Words   []string
	Literal bool // no word looks like an expansion
}

// String joins the words with single spaces; rules match against it.
func (c SimpleCommand) String() string { return strings.Join(c.Words, " ") }

// SimpleCommands parses a bash command line and returns every simple command
// in it — in pipelines, lists (&&, ||, ;), subshells, blocks, command and
// process substitutions, backticks, conditions and loop bodies — and what
// eval, sh -c and wrappers such as env, timeout, xargs and find -exec would
// run, in source order (see shell.SimpleCommands, which exec_command's
// classifier shares). Assignments alone (X=1) are not commands. A syntax
// error is returned with the parser's position.
//
// An interpreter that reads its program from standard input (sh <<< 'rm x',
// printf 'rm x' | sh, python3 <<EOF) is listed with the program it runs as
// [interpreter, shell.StdinProgram]: code that cannot be known before it
// runs, treated as `sh -c` with a word that is not literal — it is never
// Literal, so no allow specifier covers it, and every deny and ask rule
// with a command specifier matches it.
//
// Literal is judged from the words: one holding '$', a backtick or a glob
// character may be an expansion. A quoted '$' is judged the same way; the
// error is on the safe side (such a line never satisfies an allow rule by
// specifier, and is asked about instead).
func SimpleCommands(line string) ([]SimpleCommand, error) {
	cmds, err := shell.SimpleCommands(line)
	if err != nil {
		return nil, err
	}
	out := make([]SimpleCommand, len(cmds))
	for i, words := range cmds {
		out[i] = SimpleCommand{Words: words}
		out[i].Literal = !out[i].runsUnknownCode()
		for _, w := range words {
			if strings.ContainsAny(w, "$`*?[") {
				out[i].Literal = false
				break
			}
		}
	}
	return out, nil
}

// baseForm is c with its program named by its base name (/bin/rm -> rm), so
// that deny and ask rules cannot be dodged by a path. Allow rules do not use
// it: /tmp/evil/git is not the git an allow rule names.
func (c SimpleCommand) baseForm() (SimpleCommand, bool) {
	if len(c.Words) == 0 || !strings.Contains(c.Words[0], "/") {
		return c, false
	}
	words := append([]string{c.Words[0][strings.LastIndexByte(c.Words[0], '/')+1:]}, c.Words[1:]...)
	return SimpleCommand{Words: words, Literal: c.Literal}, true
}

// runsUnknownCode reports whether c stands for a program an interpreter
// reads from standard input (see shell.StdinProgram).
func (c SimpleCommand) runsUnknownCode() bool {
	return len(c.Words) == 2 && c.Words[1] == shell.StdinProgram
}

// matchesRestrictive is how deny and ask rules match a command: as written,
// or with its program's path stripped; and code that cannot be known before
// it runs matches every such rule with a command specifier, since it may
// be what the rule names.
func (r Rule) matchesRestrictive(c SimpleCommand) bool {
	if c.runsUnknownCode() && !strings.HasPrefix(r.Spec, "domain:") {
		return true
	}
	if r.matchesCommand(c) {
		return true
	}
	base, ok := c.baseForm()
	return ok && r.matchesCommand(base)
}
