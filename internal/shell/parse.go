package shell

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// SyntaxError is a command line the shell cannot parse, with the parser's
// message and the position it points at (1-based).
type SyntaxError struct {
	Line, Column int
	Message      string
	Incomplete   bool // the line ended inside a quote, a block or a substitution
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// Parse parses a bash command line. A syntax error is a *SyntaxError.
func Parse(line string) (*syntax.File, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return nil, &SyntaxError{Line: int(pe.Pos.Line()), Column: int(pe.Pos.Col()), Message: pe.Text, Incomplete: pe.Incomplete}
		}
		return nil, &SyntaxError{Line: 1, Column: 1, Message: err.Error()}
	}
	return f, nil
}

// maxNesting bounds how deep SimpleCommands looks into eval and sh -c
// strings, so that a line quoting itself cannot make it loop.
const maxNesting = 4

// SimpleCommands parses a bash command line and returns the words of every
// simple command in it: in pipelines, lists (&&, ||, ;), subshells, blocks,
// function bodies, conditions and loop bodies, command substitutions ($(...)
// and backticks), process substitutions and here-documents — in the order the
// parser meets them, outer commands before the substitutions in their words.
//
// A word that is known before running (after quote removal) is given as its
// value; a word that is not ($VAR, $(...), an unquoted glob or brace
// expansion) is given as its source text, so `$X -rf x` gives ["$X", "-rf",
// "x"] and never matches a rule naming a real program.
//
// Declarations (export, declare, local, readonly, typeset) and let are
// commands too. Assignments alone (X=1) are not.
//
// Commands that run other commands are looked into when their words are
// literal, and what they would run is listed after them: eval's argument,
// sh/bash -c's script, and the command given to env, nice, nohup, timeout,
// stdbuf, setsid, time, xargs, sudo, watch, flock, command, exec, builtin,
// and find's -exec/-execdir/-ok/-okdir. The outer command stays in the list.
//
// A syntax error is a *SyntaxError.
func SimpleCommands(line string) ([][]string, error) {
	f, err := Parse(line)
	if err != nil {
		return nil, err
	}
	return simpleCommands(f, 0), nil
}

func simpleCommands(node syntax.Node, depth int) [][]string {
	var out [][]string
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			words, literal := Words(n.Args)
			out = append(out, words)
			if literal {
				out = append(out, innerCommands(words, depth)...)
			}
		case *syntax.DeclClause:
			words := []string{n.Variant.Value}
			for _, a := range n.Args {
				words = append(words, printNode(a))
			}
			out = append(out, words)
		case *syntax.LetClause:
			words := []string{"let"}
			for _, e := range n.Exprs {
				words = append(words, printNode(e))
			}
			out = append(out, words)
		}
		return true
	})
	return out
}

// Words returns the words of a command as SimpleCommands gives them, and
// whether every one of them is literal.
func Words(args []*syntax.Word) ([]string, bool) {
	words := make([]string, 0, len(args))
	all := true
	for _, w := range args {
		s, ok := Literal(w)
		if !ok {
			all = false
			s = printNode(w)
		}
		words = append(words, s)
	}
	return words, all
}

// The reasons a word is not known before running, wrapped by [Unquote]'s
// errors.
var (
	// ErrExpansion is a parameter, command, arithmetic or process
	// expansion, an extended glob or a $"..." string.
	ErrExpansion = errors.New("an expansion is done when the line runs")
	// ErrGlob is an unquoted *, ? or [.
	ErrGlob = errors.New("an unquoted glob character (*, ? or [) is expanded when the line runs")
	// ErrBraces is a brace expansion: {a,b}, {1..3}.
	ErrBraces = errors.New("a brace expansion makes several words, or another word")
	// ErrEscape is a $'...' escape bash and the interpreter decode
	// differently.
	ErrEscape = errors.New("a $'...' escape is decoded differently by bash and by the interpreter")
)

// Literal returns the value of w after quote removal when it is known before
// running; see [Unquote].
func Literal(w *syntax.Word) (string, bool) {
	s, err := Unquote(w)
	return s, err == nil
}

// Unquote returns the one argument bash would make of w, when that is known
// before running. The decoding is mvdan.cc/sh's, the same the interpreter
// that runs the line uses; this function only refuses what cannot be decoded
// statically, with an error wrapping [ErrExpansion], [ErrGlob], [ErrBraces]
// or [ErrEscape]:
//
//   - parameter, command, arithmetic and process expansions, extended globs
//     and $"...": their values exist only when the line runs;
//   - an unquoted *, ? or [, even escaped: the glob rules for brackets and
//     escapes are bash's, and refusing is cheaper than reproducing them;
//   - a brace expansion: it may make several words, or another word
//     ({x,} is x);
//   - the $'...' escapes that bash and the interpreter decode differently:
//     \cX, \x{HH}, an octal escape above \377, and a \u or \U that is not a
//     Unicode character (a surrogate, or above U+10FFFF). Bash also runs
//     sh -c scripts, so both readings must agree.
//
// \u and \U are decoded as UTF-8, as the interpreter does and as bash does
// in a UTF-8 locale; in the C locale bash keeps such an escape as its text,
// which differs from the decoded word only in the non-ASCII characters, and
// no program name or option the classifier knows holds one.
//
// A tilde is kept as written, wherever bash would expand it: the home
// directory is not known here, and a rule names a path with a tilde as the
// model writes it. A tilde never expands to several words, and in a line
// the read-only classifier accepts never to an option: HOME cannot be
// assigned there, and PWD and OLDPWD (~+, ~-) are absolute paths.
func Unquote(w *syntax.Word) (string, error) {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[") {
				return "", ErrGlob
			}
		case *syntax.SglQuoted:
			if p.Dollar && !staticEscapes(p.Value) {
				return "", ErrEscape
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", ErrExpansion
			}
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", ErrExpansion
				}
			}
		default:
			return "", ErrExpansion
		}
	}
	if len(w.Parts) == 1 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(lit.Value, `\{~`) {
			return lit.Value, nil // plain text, the common word: nothing to decode
		}
	}
	if braceExpansion(w) {
		return "", ErrBraces
	}
	// With no ReadDir2 there is no globbing, and the environment maps every
	// home directory to its own tilde: nothing else of the environment can
	// be reached once expansions are refused.
	cfg := &expand.Config{Env: expand.FuncEnviron(tildeAsWritten)}
	fields, err := expand.Fields(cfg, w)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrExpansion, err)
	}
	if len(fields) != 1 {
		return "", fmt.Errorf("%w: %d words", ErrBraces, len(fields))
	}
	return fields[0], nil
}

// tildeAsWritten is the environment Unquote expands in: HOME is "~" and
// the home of user NAME ("HOME NAME" in expand's terms) is "~NAME".
func tildeAsWritten(name string) string {
	if user, ok := strings.CutPrefix(name, "HOME"); ok && (user == "" || user[0] == ' ') {
		return "~" + strings.TrimPrefix(user, " ")
	}
	return ""
}

// braceExpansion reports whether bash would brace-expand w. A brace pair
// with a single element ({}, {x}) is literal, as find's placeholder is.
func braceExpansion(w *syntax.Word) bool {
	split := *w // SplitBraces replaces the Parts of the word it is given
	if !syntax.SplitBraces(&split) {
		return false
	}
	found := false
	syntax.Walk(&split, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.BraceExp); ok {
			found = true
		}
		return !found
	})
	return found
}

// staticEscapes reports whether every escape in the body of a $'...' string
// is one bash decodes as expand.Format does.
func staticEscapes(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		i++
		switch e := s[i]; {
		case e == 'c':
			return false
		case e == 'x' && i+1 < len(s) && s[i+1] == '{':
			return false
		case e >= '4' && e <= '7' && i+2 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]):
			return false // three digits from \400 up: more than a byte
		case e == 'u' || e == 'U':
			if n, ok := hexPrefix(s[i+1:], map[byte]int{'u': 4, 'U': 8}[e]); ok && !utf8.ValidRune(rune(n)) {
				return false
			}
		}
	}
	return true
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// hexPrefix decodes the up to max hex digits s starts with.
func hexPrefix(s string, max int) (uint64, bool) {
	j := 0
	for j < len(s) && j < max && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
		j++
	}
	n, err := strconv.ParseUint(s[:j], 16, 32)
	return n, err == nil
}

func printNode(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}
