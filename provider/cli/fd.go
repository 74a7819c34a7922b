package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"path"
	"strings"

	"github.com/quiverkit/quiver/internal/search"
	"github.com/quiverkit/quiver/tools"
	"github.com/quiverkit/quiver/workspace"
)

// fd serves glob_search.
type fd struct{ runner }

// glob is a tools.GlobBackend. fd lists the files below the pattern's
// leading directories whose names match the pattern's last part; the
// engine's glob matcher then decides on the whole path, and the filter
// applies the ignore rules fd does not know and reads the modification
// times.
func (f fd) glob(ctx context.Context, ws *workspace.Workspace, q *tools.GlobQuery, c *search.GlobCollector) error {
	if ws.Backend() != nil {
		// A backend's files are on no disk fd could list: the engine serves them.
		return tools.BuiltinGlob(ctx, ws, q, c)
	}
	start, rest, ok, err := search.PlanGlob(ws, q.Base, q.Pattern)
	if err != nil || !ok {
		return err
	}
	filter := search.NewFilter(ws, start)
	defer filter.Close()
	read := func(r io.Reader) error {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sc.Split(splitNUL)
		for sc.Scan() {
			p := cleanPath(sc.Text())
			if !rest.Match(search.RelTo(start, p), path.Base(p)) || !filter.Keep(p) {
				continue
			}
			mt, err := filter.ModTime(p)
			if err != nil {
				continue // gone since fd listed it
			}
			c.Add(search.FileTime{Path: p, ModTime: mt})
		}
		return sc.Err()
	}
	stderr, err := f.run(ctx, ws.Dir(), f.args(q, rest, start), read)
	if err == nil || exitCode(err) == 1 && strings.TrimSpace(stderr) == "" {
		return nil
	}
	if errors.Is(err, errFallback) {
		return tools.BuiltinGlob(ctx, ws, q, c)
	}
	return programError("fd", err, stderr)
}

// args builds fd's command line. The pattern given to fd is the last part
// of the glob when it is a plain name pattern (fd matches names); "*"
// otherwise.
func (f fd) args(q *tools.GlobQuery, rest *search.PathGlob, start string) []string {
	args := []string{
		"--glob", "--type=file", "--type=symlink", "--print0", "--color=never",
		"--no-ignore-parent", "--exclude=.git",
	}
	if q.Hidden {
		args = append(args, "--hidden")
	}
	return append(args, "--", lastNamePattern(rest.String()), start)
}

// lastNamePattern returns the pattern's last part if every match's name
// must match it (a part without "**" or classes, which fd's glob syntax
// could read differently), else "*".
func lastNamePattern(pattern string) string {
	last := pattern[strings.LastIndex(pattern, "/")+1:]
	if last == "" || strings.Contains(last, "**") || strings.ContainsAny(last, `[]\`) || strings.Contains(pattern, "{") && strings.ContainsAny(pattern[strings.Index(pattern, "{"):], "/") {
		return "*"
	}
	return last
}
