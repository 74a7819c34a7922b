package custom

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/quiverkit/quiver/internal/shell"
)

// Template is a command template split into argv words at load time.
type Template struct {
	words []word
}

// word is one argv word: literal text and placeholders, in order.
type word []segment

// segment is literal text, or a placeholder when param is set.
type segment struct {
	text  string
	param string
}

// placeholder is compiled on first use, not when the package is
// initialised (start-up cost).
var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_-]*)\}`) })

// ParseTemplate splits command into words. It must be a single simple
// command of literal words; see the package documentation for what is
// refused and why.
func ParseTemplate(command string) (*Template, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, fmt.Errorf("command template: %w", err)
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("command template: must be exactly one command, found %d", len(f.Stmts))
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	switch {
	case !ok:
		return nil, fmt.Errorf("command template: must be a simple command (no pipes, lists, blocks or keywords)")
	case len(st.Redirs) > 0:
		return nil, fmt.Errorf("command template: redirections are not supported (there is no shell)")
	case st.Background || st.Coprocess || st.Negated:
		return nil, fmt.Errorf("command template: &, coproc and ! are not supported (there is no shell)")
	case len(call.Assigns) > 0:
		return nil, fmt.Errorf("command template: variable assignments are not supported")
	case len(call.Args) == 0:
		return nil, fmt.Errorf("command template: empty")
	}
	t := &Template{}
	for i, w := range call.Args {
		text, err := wordText(w)
		if err != nil {
			return nil, fmt.Errorf("command template: word %d %q: %w", i+1, printWord(w), err)
		}
		wd := split(text)
		if i == 0 && len(wd.params()) > 0 {
			return nil, fmt.Errorf("command template: the program %q cannot be a parameter", text)
		}
		t.words = append(t.words, wd)
	}
	return t, nil
}

// wordText removes the quotes of a word made only of literal parts. The
// refusals here are the template's own, worded for its author; the decoding
// is the shell classifier's, so a word means the same to both.
func wordText(w *syntax.Word) (string, error) {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", fmt.Errorf("$'...' quoting is not supported")
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", fmt.Errorf("only literal text is allowed inside double quotes; use {param} placeholders")
				}
			}
		default:
			return "", fmt.Errorf("%T is not supported: only literal text and {param} placeholders are", p)
		}
	}
	text, err := shell.Unquote(w)
	switch {
	case errors.Is(err, shell.ErrGlob):
		return "", fmt.Errorf("globs are not expanded (there is no shell); quote the word")
	case err != nil:
		return "", fmt.Errorf("%w (there is no shell); quote the word", err)
	}
	return text, nil
}

func printWord(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// split finds the placeholders of one word.
func split(text string) word {
	var w word
	last := 0
	for _, m := range placeholder().FindAllStringSubmatchIndex(text, -1) {
		if m[0] > last {
			w = append(w, segment{text: text[last:m[0]]})
		}
		w = append(w, segment{param: text[m[2]:m[3]]})
		last = m[1]
	}
	if last < len(text) || len(w) == 0 {
		w = append(w, segment{text: text[last:]})
	}
	return w
}

func (w word) params() []string {
	var out []string
	for _, s := range w {
		if s.param != "" {
			out = append(out, s.param)
		}
	}
	return out
}

// Params returns the names of the placeholders, in order of first use.
func (t *Template) Params() []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range t.words {
		for _, p := range w.params() {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// OptionError is a value that would be read as an option.
type OptionError struct {
	Param, Value string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("parameter %q: value %q starts with '-' and would be read as an option; this parameter does not allow options", e.Param, e.Value)
}

// Expand returns the argv for values, substituting each placeholder once:
// values are copied in and never scanned. A word with a placeholder whose
// value is absent is left out. A value starting with '-' at the start of a
// word is an *OptionError unless allowOptions(param).
func (t *Template) Expand(values map[string]string, allowOptions func(param string) bool) ([]string, error) {
	argv := make([]string, 0, len(t.words))
words:
	for _, w := range t.words {
		var b strings.Builder
		for i, s := range w {
			if s.param == "" {
				b.WriteString(s.text)
				continue
			}
			v, ok := values[s.param]
			if !ok {
				continue words
			}
			if i == 0 && strings.HasPrefix(v, "-") && (allowOptions == nil || !allowOptions(s.param)) {
				return nil, &OptionError{Param: s.param, Value: v}
			}
			b.WriteString(v)
		}
		argv = append(argv, b.String())
	}
	return argv, nil
}
