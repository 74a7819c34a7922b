package shell

import (
	"errors"
	"fmt"
	"strings"

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

// Literal returns the value of w after quote removal when it is known before
// running: w has no parameter, command, arithmetic or process expansion, no
// unquoted glob characters and no brace expansion. A leading tilde is left as
// it is.
func Literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[") || braceExpansion(p.Value) {
				return "", false
			}
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// braceExpansion reports whether s may hold a bash brace expansion: a "{"
// followed by "," or ".." before a "}". A lone "{}" (find's placeholder) is
// literal.
func braceExpansion(s string) bool {
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			return false
		}
		s = s[open+1:]
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return false
		}
		if body := s[:end]; strings.Contains(body, ",") || strings.Contains(body, "..") {
			return true
		}
	}
}

// ansiC decodes the backslash escapes of bash's $'...' quotes. As in bash,
// an unknown escape is kept as written and a NUL byte ends the string.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
			}
		case 'x', 'u', 'U', '0', '1', '2', '3', '4', '5', '6', '7':
			base, max := 16, map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			start := i + 1
			if e >= '0' && e <= '7' {
				base, max, start = 8, 3, i
			}
			j := start
			for j < len(s) && j-start < max && digitValue(s[j]) < base {
				j++
			}
			if j == start {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n := 0
			for _, d := range []byte(s[start:j]) {
				n = n*base + digitValue(d)
			}
			i = j - 1
			switch {
			case n == 0:
				return b.String()
			case e == 'u' || e == 'U':
				b.WriteRune(rune(n))
			default:
				b.WriteByte(byte(n))
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

// unescape removes backslash escapes from an unquoted literal; a backslash
// before a newline joins the lines.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslash escapes that double quotes honour:
// before $, `, ", \ and newline.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func printNode(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}
