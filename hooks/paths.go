package hooks

import (
	"path"
	"slices"
	"strings"

	"github.com/quiverkit/quiver/internal/shell"
	"mvdan.cc/sh/v3/syntax"
)

// Paths are the paths a hook's command line names, as it writes them
// (cleaned, with slashes): relative to the directory the hook runs in, the
// workspace root, or absolute. Nothing is looked up: which of them exist,
// and which lie in the workspace, is the caller's to find out.
type Paths struct {
	// Files are the words that may name a file the hook runs or reads: every
	// word known before the line runs, the value of every --opt=VALUE, the
	// target of every redirection that reads. A word that names no file
	// ("python3", "exit") is a harmless guess; the caller keeps those that
	// exist.
	Files []string
	// Dirs are the directories of words known only in part
	// ($CLAUDE_PROJECT_DIR/.claude/hooks/$NAME.sh names one file of
	// .claude/hooks, which one only the run says).
	Dirs []string
}

// maxPathNesting bounds how deep CommandPaths reads words as command lines
// of their own (sh -c '...', eval, env -S): a line that quotes itself
// cannot make it loop, and each level only reads strings shorter than the
// one before.
const maxPathNesting = 4

// CommandPaths returns the paths a hook's command line names, so that the
// scripts a hook runs are trusted and protected as the configuration that
// names them is. It guesses wide, since a guess too many costs a path
// protected for nothing while a guess missed leaves a guard a model may
// rewrite:
//
//   - the line is parsed as the shell parses it (package internal/shell,
//     mvdan.cc/sh), so quotes, escapes and spacing change nothing;
//   - $CLAUDE_PROJECT_DIR, ${CLAUDE_PROJECT_DIR} and $PWD are the
//     directory the hook runs in, also in double quotes and with a default
//     (${CLAUDE_PROJECT_DIR:-x}): both are always set there;
//   - every word known before running is read as a command line of its own
//     too, so that what sh -c, bash -lc, eval, env -S, su -c or any other
//     program given a script runs is found, whatever the wrapper;
//   - a redirection's target counts when it is read (< file, <> file), not
//     when it is written (> log), which the hook changes as it runs.
//
// A line that does not parse names nothing: it cannot run either.
func CommandPaths(line string) Paths {
	var c pathCollector
	c.line(line, 0)
	return c.result()
}

// SourcedPaths returns the paths a shell script reads as code: the words
// after source and ., wherever they stand in it. Its other words are data
// it reads or writes, which trust has no reason to pin.
func SourcedPaths(script string) Paths {
	cmds, err := shell.SimpleCommands(script)
	if err != nil {
		return Paths{}
	}
	var c pathCollector
	for _, argv := range cmds {
		if len(argv) > 1 && (argv[0] == "source" || argv[0] == ".") {
			c.line(argv[1], maxPathNesting-1) // a source text ("$X"/lib.sh) is read as written
		}
	}
	return c.result()
}

type pathCollector struct {
	files, dirs []string
}

func (c *pathCollector) result() Paths {
	for _, s := range []*[]string{&c.files, &c.dirs} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	return Paths{Files: c.files, Dirs: c.dirs}
}

// line collects the paths of one command line, nested depth deep.
func (c *pathCollector) line(line string, depth int) {
	f, err := shell.Parse(line)
	if err != nil {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			if n.Word != nil && !readRedirect(n.Op) {
				c.written(n.Word)
				return false // a file written: neither pinned nor protected
			}
		case *syntax.Word:
			c.word(n, depth)
		}
		return true
	})
}

// written skips a written redirection's target but keeps what its
// expansions run ($(cat x) > y still reads x).
func (c *pathCollector) written(w *syntax.Word) {
	syntax.Walk(w, func(n syntax.Node) bool {
		if cs, ok := n.(*syntax.CmdSubst); ok {
			for _, st := range cs.Stmts {
				syntax.Walk(st, func(n syntax.Node) bool {
					if w, ok := n.(*syntax.Word); ok {
						c.word(w, maxPathNesting)
					}
					return true
				})
			}
			return false
		}
		return true
	})
}

// readRedirect reports whether a redirection reads its target (<, <>),
// rather than writing it, duplicating a descriptor or being a here-document
// or here-string (whose words are walked as words).
func readRedirect(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.DplOut, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	}
	return false
}

// word collects one word: whole when it is known before running, else the
// directory of its known beginning; and what it says as a line of its own.
func (c *pathCollector) word(w *syntax.Word, depth int) {
	known, whole := knownPrefix(w)
	if !whole {
		if i := strings.LastIndexByte(known, '/'); i >= 0 {
			c.add(&c.dirs, known[:i+1])
		}
		return
	}
	c.add(&c.files, known)
	if opt, val, ok := strings.Cut(known, "="); ok && strings.HasPrefix(opt, "-") {
		c.add(&c.files, val)
	}
	if depth+1 < maxPathNesting && strings.ContainsAny(known, " \t\n;&|<>()`$\"'") {
		c.line(known, depth+1)
	}
}

// add keeps p cleaned, unless it names nothing (empty, the root itself,
// an option).
func (c *pathCollector) add(to *[]string, p string) {
	if p == "" || strings.HasPrefix(p, "-") || strings.ContainsRune(p, 0) || strings.ContainsAny(p, "\n") {
		return
	}
	p = path.Clean(p)
	if p == "." || p == "/" || p == ".." || strings.HasPrefix(p, "../") {
		return
	}
	*to = append(*to, p)
}

// knownPrefix returns what of w is known before running, with the project
// directory as ".", and whether that is the whole word. A word with a
// glob or brace character outside quotes is known up to it.
func knownPrefix(w *syntax.Word) (string, bool) {
	parts, whole := knownParts(w.Parts, false)
	if len(parts) == 0 {
		return "", whole
	}
	s, err := shell.Unquote(&syntax.Word{Parts: parts})
	if err != nil {
		return "", false
	}
	return s, whole
}

// knownParts returns the word parts up to the first one not known before
// running, the project directory's expansions replaced by ".", and
// whether every part was known. quoted is inside double quotes, where
// globs and braces are text.
func knownParts(in []syntax.WordPart, quoted bool) ([]syntax.WordPart, bool) {
	var out []syntax.WordPart
	for _, p := range in {
		switch p := p.(type) {
		case *syntax.Lit:
			if i := strings.IndexAny(p.Value, "*?[{"); i >= 0 && !quoted {
				return append(out, &syntax.Lit{Value: strings.TrimSuffix(p.Value[:i], `\`)}), false
			}
			out = append(out, p)
		case *syntax.SglQuoted:
			if quoted {
				return out, false // not a part double quotes hold
			}
			out = append(out, p)
		case *syntax.DblQuoted:
			if quoted || p.Dollar {
				return out, false
			}
			inner, whole := knownParts(p.Parts, true)
			out = append(out, &syntax.DblQuoted{Parts: inner})
			if !whole {
				return out, false
			}
		case *syntax.ParamExp:
			if !projectDir(p) {
				return out, false
			}
			out = append(out, &syntax.Lit{Value: "."})
		default:
			return out, false
		}
	}
	return out, true
}

// projectDir reports whether p expands to the directory the hook runs in:
// $CLAUDE_PROJECT_DIR or $PWD, plain or with a default, both being set.
func projectDir(p *syntax.ParamExp) bool {
	if p.Param == nil || p.Flags != nil || p.Excl || p.Length || p.Width || p.IsSet || p.NestedParam != nil ||
		p.Index != nil || len(p.Modifiers) > 0 || p.Slice != nil || p.Repl != nil || p.Names != 0 {
		return false
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		default:
			return false
		}
	}
	return p.Param.Value == "CLAUDE_PROJECT_DIR" || p.Param.Value == "PWD"
}
