package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SimpleCommand is one command a shell line would run: its words, literal
// where they can be known before running (quotes removed), or their source
// text where they cannot ($VAR, $(...), globs left as written).
type SimpleCommand struct {
	Words   []string
	Literal bool // every word is known before running
}

// String joins the words with single spaces; rules match against it.
func (c SimpleCommand) String() string { return strings.Join(c.Words, " ") }

// SimpleCommands parses a bash command line and returns every simple command
// in it — in pipelines, lists (&&, ||, ;), subshells, blocks, command and
// process substitutions, backticks, conditions and loop bodies — in source
// order. Assignments alone (X=1) are not commands. A syntax error is returned
// with the parser's position.
func SimpleCommands(line string) ([]SimpleCommand, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, fmt.Errorf("parse shell command: %w", err)
	}
	var out []SimpleCommand
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				out = append(out, simpleCommand(n.Args))
			}
		case *syntax.DeclClause:
			// declare/export/local/readonly run as commands too.
			words := []string{n.Variant.Value}
			for _, a := range n.Args {
				words = append(words, printNode(a))
			}
			out = append(out, SimpleCommand{Words: words})
		}
		return true
	})
	return out, nil
}

func simpleCommand(args []*syntax.Word) SimpleCommand {
	c := SimpleCommand{Literal: true}
	for _, w := range args {
		s, ok := wordLiteral(w)
		if !ok {
			c.Literal = false
			s = printNode(w)
		}
		c.Words = append(c.Words, s)
	}
	return c
}

// wordLiteral returns the value of w after quote removal, if it has no
// expansions.
func wordLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[") {
				return "", false // a glob: the words it expands to are unknown
			}
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes backslash escapes from an unquoted literal.
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

func printNode(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}
