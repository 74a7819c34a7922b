package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/quiverkit/quiver/internal/search"
	"github.com/quiverkit/quiver/tools"
	"github.com/quiverkit/quiver/workspace"
)

// ripgrep serves grep_search and search_code.
type ripgrep struct{ runner }

// maxJSONLine bounds one line of rg's JSON output held in memory; a longer
// one (a match in a line of about a megabyte or more) sends the call to the
// engine, which reads such lines in windows and shows the longest by their
// head.
const maxJSONLine = 1 << 20

// grep is a tools.GrepBackend.
func (r ripgrep) grep(ctx context.Context, ws *workspace.Workspace, q *tools.GrepQuery, c *search.Collector) error {
	if !q.StartIsDir || ws.Backend() != nil {
		// A backend's files are on no disk rg could read: the engine serves them.
		return tools.BuiltinGrep(ctx, ws, q, c)
	}
	filter := search.NewFilter(ws, q.Start)
	defer filter.Close()
	rd := rgReader{q: q, c: c, filter: filter}
	stderr, err := r.run(ctx, ws.Dir(), r.args(q, c), rd.read)
	if err == nil || exitCode(err) == 1 || exitCode(err) == 2 && strings.TrimSpace(stderr) == "" {
		return nil // 1: no match; 2 with nothing said: some file could not be read, as the engine skips it
	}
	if errors.Is(err, errFallback) || strings.Contains(stderr, "regex parse error") {
		c.Reset()
		return tools.BuiltinGrep(ctx, ws, q, c)
	}
	return programError("rg", err, stderr)
}

// args builds rg's command line for q.
func (r ripgrep) args(q *tools.GrepQuery, c *search.Collector) []string {
	args := []string{
		"--no-config", "--no-messages",
		"--no-ignore-parent", "--no-require-git", "--no-ignore-global",
		"--encoding=none", "--glob=!.git",
	}
	if q.Hidden {
		args = append(args, "--hidden")
	}
	if g := nameGlob(q.Filter); g != "" {
		args = append(args, "--glob="+g)
	}
	switch c.Mode() {
	case search.ModeFiles:
		args = append(args, "--files-with-matches", "--null")
	case search.ModeCount:
		args = append(args, "--count", "--with-filename", "--null")
	default:
		args = append(args, "--json")
		if n := c.Context(); n > 0 {
			args = append(args, "--context="+strconv.Itoa(n))
		}
	}
	return append(args, "--regexp="+q.Matcher.Source(), "--", q.Start)
}

// nameGlob returns a file pattern in a form rg reads as the engine does, to
// narrow rg's search; "" when there is none. Only name patterns without
// classes, escapes or "**" qualify; the engine's matcher still decides.
func nameGlob(g *search.PathGlob) string {
	if g == nil || !g.ByName() || strings.ContainsAny(g.String(), `[]\`) || strings.Contains(g.String(), "**") {
		return ""
	}
	return g.String()
}

// rgReader turns rg's output into the engine's file results.
type rgReader struct {
	q      *tools.GrepQuery
	c      *search.Collector
	filter *search.Filter // the rules rg did not apply
}

// keep reports whether a file rg found is one the engine would search.
func (rd *rgReader) keep(rel string) bool {
	if !rd.filter.KeepContent(rel) {
		return false
	}
	return rd.q.Filter == nil || rd.q.Filter.Match(search.RelTo(rd.q.Start, rel), path.Base(rel))
}

func (rd *rgReader) read(r io.Reader) error {
	br := r.(*bufio.Reader)
	switch rd.c.Mode() {
	case search.ModeFiles:
		return rd.readFiles(br)
	case search.ModeCount:
		return rd.readCounts(br)
	}
	return rd.readJSON(br)
}

// readFiles reads --files-with-matches --null output: "path\0" per file.
func (rd *rgReader) readFiles(br *bufio.Reader) error {
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sc.Split(splitNUL)
	for sc.Scan() {
		if p := cleanPath(sc.Text()); rd.keep(p) {
			rd.c.Add(search.FileResult{Path: p, Count: 1})
		}
	}
	return sc.Err()
}

// readCounts reads --count --null output: "path\0count\n" per file.
func (rd *rgReader) readCounts(br *bufio.Reader) error {
	for {
		p, err := br.ReadString(0)
		if err == io.EOF && p == "" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("rg --count output: %w", err)
		}
		num, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("rg --count output: %w", err)
		}
		n, err := strconv.Atoi(strings.TrimSuffix(num, "\n"))
		if err != nil {
			return fmt.Errorf("rg --count output: count %q: %w", num, err)
		}
		if p = cleanPath(strings.TrimSuffix(p, "\x00")); rd.keep(p) {
			rd.c.Add(search.FileResult{Path: p, Count: n})
		}
	}
}

// readJSON reads rg --json output. rg writes each file's messages
// together, between "begin" and "end".
func (rd *rgReader) readJSON(br *bufio.Reader) error {
	var cur *fileAcc
	for {
		line, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		m, err := parseRGLine(line)
		if err != nil {
			return fmt.Errorf("rg --json output: %w: %.200q", err, line)
		}
		switch m.kind {
		case "begin":
			p := cleanPath(string(m.path))
			cur = nil
			if rd.keep(p) {
				cur = &fileAcc{res: search.FileResult{Path: p}, limit: rd.c.Limit(), quiet: rd.c.Full(p)}
			}
		case "match", "context":
			if cur != nil {
				cur.add(m.kind == "match", m.lineNumber, m.text, m.firstStart)
			}
		case "end":
			if cur != nil {
				rd.c.Add(cur.result(rd.c.Context()))
			}
			cur = nil
		}
	}
}

// readLine returns one line of output without its newline. A line over
// maxJSONLine is errFallback: the engine serves the call instead.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == nil {
		return line[:len(line)-1], nil
	}
	if err == io.EOF {
		if len(line) == 0 {
			return nil, io.EOF
		}
		return line, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	long := append([]byte(nil), line...)
	for {
		more, err := br.ReadSlice('\n')
		long = append(long, more...)
		if len(long) > maxJSONLine {
			return nil, errFallback
		}
		switch {
		case err == nil:
			return long[:len(long)-1], nil
		case err == io.EOF:
			return long, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		}
	}
}

// fileAcc gathers one file's lines the way the engine keeps them: every
// match counted, lines kept up to the limit-th match and its context.
type fileAcc struct {
	res   search.FileResult
	limit int
	kept  int
	quiet bool // nothing of this file can be kept: count only
	done  bool // the limit is reached: only count now
}

func (a *fileAcc) add(match bool, num int, text []byte, at int) {
	if match {
		a.res.Count++
	}
	if a.quiet || a.done {
		return
	}
	if match {
		if a.kept == a.limit {
			a.done = true
			return
		}
		a.kept++
	}
	text = bytes.TrimSuffix(text, []byte("\n"))
	if !match || at > len(text) {
		at = -1
	}
	a.res.Lines = append(a.res.Lines, search.Line{Num: num, Text: search.ClipLineAt(text, at), Context: !match})
}

func (a *fileAcc) result(context int) search.FileResult {
	a.res.Lines = search.TrimFile(a.res.Lines, a.limit, context)
	return a.res
}
