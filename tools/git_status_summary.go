package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed git_status_summary.md
var gitStatusDescription string

// GitStatusSummaryInput is git_status_summary's input.
type GitStatusSummaryInput struct {
	Path string `json:"path,omitempty" jsonschema:"a directory (or file) inside the repository, relative to the workspace root (default: the root)"`
}

// GitStatusSummaryOutput is git_status_summary's typed output. Entry paths are
// relative to the repository root.
type GitStatusSummaryOutput struct {
	RepositoryRoot string        `json:"repository_root"` // relative to the workspace root, or absolute when outside it
	Branch         string        `json:"branch,omitempty"`
	Detached       bool          `json:"detached,omitempty"`
	Commit         string        `json:"commit,omitempty"` // HEAD's commit; empty before the first commit
	NoCommits      bool          `json:"no_commits,omitempty"`
	Upstream       string        `json:"upstream,omitempty"`
	Ahead          int           `json:"ahead"`
	Behind         int           `json:"behind"`
	Staged         []GitChange   `json:"staged"`
	Unstaged       []GitChange   `json:"unstaged"`
	Untracked      []string      `json:"untracked"`
	Conflicted     []GitConflict `json:"conflicted"`
	Counts         GitCounts     `json:"counts"`
	Clean          bool          `json:"clean"`
	Truncated      bool          `json:"truncated,omitempty"` // a list was cut at gitListLimit entries; Counts has the totals
}

// GitChange is a changed path, staged or not.
type GitChange struct {
	Path   string `json:"path"`
	Status string `json:"status"`         // modified, added, deleted, renamed, copied, type changed
	From   string `json:"from,omitempty"` // renamed or copied: the source path
}

// GitConflict is a path with unresolved merge conflicts.
type GitConflict struct {
	Path   string `json:"path"`
	Code   string `json:"code"`   // git's two letters: UU, AA, DD, AU, UA, DU, UD
	Status string `json:"status"` // both modified, both added, ...
}

// GitCounts are the sizes of the lists, before any was cut.
type GitCounts struct {
	Staged     int `json:"staged"`
	Unstaged   int `json:"unstaged"`
	Untracked  int `json:"untracked"`
	Conflicted int `json:"conflicted"`
}

// GitStatusSummary is a typed reference to git_status_summary, for quiver.Call.
var GitStatusSummary = tool.RefTo[GitStatusSummaryInput, *GitStatusSummaryOutput]("git_status_summary")

// gitListLimit bounds each list, so that a tree with a hundred thousand
// untracked files gives a usable answer.
const gitListLimit = 1000

// gitTimeout bounds each git run.
const gitTimeout = 60 * time.Second

func newGitStatusSummary() *tool.Tool {
	return withPathArgs(tool.Func("git_status_summary", gitStatusDescription, gitStatusSummary, summaryOf("path"), tool.ReadOnly(),
		tool.WithSubjects(func(in GitStatusSummaryInput) []tool.Subject { return tool.PathSubject(orRoot(in.Path)) })),
		onePath("path", aFile|aDir, func(in GitStatusSummaryInput) string { return in.Path }))
}

func gitStatusSummary(ctx context.Context, tc tool.Context, in GitStatusSummaryInput) (*GitStatusSummaryOutput, error) {
	ws, err := workspace.From(ctx, tc)
	if err != nil {
		return nil, err
	}
	dir, err := gitDir(ws, in.Path)
	if err != nil {
		return nil, err
	}
	box, err := sandbox.For(ctx, tc, ws.Dir())
	if err != nil {
		return nil, sandbox.ToolError(err)
	}
	box = box.With(sandbox.ReadOnly) // it only reads, whatever the scope
	top, err := runGit(ctx, box, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	root := strings.TrimRight(string(top), "\n")
	out := &GitStatusSummaryOutput{RepositoryRoot: ws.Display(root)}
	hidden := func(p string) bool { return readDenied(ws, filepath.Join(root, filepath.FromSlash(p))) }
	err = streamGit(ctx, box, root, func(r io.Reader) error { return parsePorcelainV2(r, out, hidden) },
		"status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal")
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readDenied reports whether the policy denies reading abs, a path git
// listed: a name can itself be the secret, so a denied path is left out of
// the summary as listings leave it out (workspace.Workspace.GuardReads).
// The path is asked as the workspace spells it, relative inside it.
func readDenied(ws *workspace.Workspace, abs string) bool {
	_, denied := ws.ReadDeniedPath(ws.Display(abs))
	return denied
}

// gitDir returns the absolute directory to run git in: path's directory if
// path is a file.
func gitDir(ws *workspace.Workspace, p string) (string, error) {
	rel, fi, err := pathArg(ws, "path", p, aFile|aDir)
	if err != nil {
		return "", err
	}
	abs := rel
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(ws.Dir(), filepath.FromSlash(rel))
	}
	if !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	return abs, nil
}

// gitCommand is sandbox.GitCommand: one git for every reader.
func gitCommand(ctx context.Context, box *sandbox.Profile, dir string, args ...string) *sandbox.Process {
	return sandbox.GitCommand(ctx, box, dir, args...)
}

// runGit runs a git command with a small output and returns its stdout.
func runGit(ctx context.Context, box *sandbox.Profile, dir string, args ...string) ([]byte, error) {
	var stdout []byte
	err := streamGit(ctx, box, dir, func(r io.Reader) error {
		var err error
		stdout, err = io.ReadAll(io.LimitReader(r, 1<<20))
		return err
	}, args...)
	return stdout, err
}

// streamGit runs git under box and hands its stdout to consume as it is
// produced.
func streamGit(ctx context.Context, box *sandbox.Profile, dir string, consume func(io.Reader) error, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	proc := gitCommand(ctx, box, dir, args...)
	var stderr bytes.Buffer
	proc.Stderr = &limitedBuffer{buf: &stderr, max: 8 << 10}
	stdout, err := proc.StdoutPipe()
	if err != nil {
		return tool.Errorf(tool.CodeExecutionFailed, "git: %w", err)
	}
	if err := proc.Start(); err != nil {
		var ue *sandbox.UnavailableError
		switch {
		case errors.As(err, &ue):
			return sandbox.ToolError(err)
		case errors.Is(err, exec.ErrNotFound):
			return tool.Errorf(tool.CodeExecutionFailed, "git is not installed (not found in PATH)")
		}
		return tool.Errorf(tool.CodeExecutionFailed, "git: %w", err)
	}
	perr := consume(stdout)
	io.Copy(io.Discard, stdout)
	werr := proc.Wait()
	switch {
	case ctx.Err() != nil:
		return tool.Errorf(tool.CodeTimeout, "git %s did not finish within %s", args[0], gitTimeout)
	case werr != nil:
		return gitError(dir, stderr.String(), werr)
	case perr != nil:
		return tool.Errorf(tool.CodeExecutionFailed, "reading git %s: %w", args[0], perr)
	}
	return nil
}

func gitError(dir, stderr string, err error) error {
	msg := strings.TrimSpace(stderr)
	if strings.Contains(msg, "not a git repository") {
		return tool.Errorf(tool.CodeExecutionFailed, "%s is not inside a git repository (no .git here or in any parent directory); give a path inside one, or run `git init` first", dir).WithCause(err)
	}
	if msg == "" {
		msg = err.Error()
	}
	return tool.Errorf(tool.CodeExecutionFailed, "git failed in %s: %s", dir, msg).WithCause(err)
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// parsePorcelainV2 reads `git status --porcelain=v2 --branch -z` into out:
// the branch headers, then one record per path ("1" changed, "2" renamed
// or copied, followed by a record with the source path, "u" unmerged, "?"
// untracked, "!" ignored). A record naming a path hidden reports (nil:
// none), on either side of a rename, is left out, of the counts too, as
// if the path were not there. Lists are cut at gitListLimit entries.
func parsePorcelainV2(r io.Reader, out *GitStatusSummaryOutput, hidden func(path string) bool) error {
	if hidden == nil {
		hidden = func(string) bool { return false }
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sc.Split(splitNUL)
	out.Staged, out.Unstaged, out.Untracked, out.Conflicted = []GitChange{}, []GitChange{}, []string{}, []GitConflict{}
	for sc.Scan() {
		rec := sc.Text()
		var err error
		switch {
		case strings.HasPrefix(rec, "# "):
			err = out.header(rec[2:])
		case strings.HasPrefix(rec, "1 "):
			err = out.changed(rec, 9, "", hidden)
		case strings.HasPrefix(rec, "2 "):
			if !sc.Scan() {
				return fmt.Errorf("rename record %q has no source path", rec)
			}
			err = out.changed(rec, 10, sc.Text(), hidden)
		case strings.HasPrefix(rec, "u "):
			err = out.unmerged(rec, hidden)
		case strings.HasPrefix(rec, "? "):
			if hidden(rec[2:]) {
				continue
			}
			out.Counts.Untracked++
			if len(out.Untracked) < gitListLimit {
				out.Untracked = append(out.Untracked, rec[2:])
			} else {
				out.Truncated = true
			}
		case strings.HasPrefix(rec, "! "):
		default:
			err = fmt.Errorf("unexpected record %q", rec)
		}
		if err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	out.Clean = out.Counts == GitCounts{}
	return nil
}

func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// header reads one "# branch.*" line.
func (o *GitStatusSummaryOutput) header(h string) error {
	key, value, _ := strings.Cut(h, " ")
	switch key {
	case "branch.oid":
		if value == "(initial)" {
			o.NoCommits = true
		} else {
			o.Commit = value
		}
	case "branch.head":
		if value == "(detached)" {
			o.Detached = true
		} else {
			o.Branch = value
		}
	case "branch.upstream":
		o.Upstream = value
	case "branch.ab":
		var err error
		if o.Ahead, o.Behind, err = parseAheadBehind(value); err != nil {
			return err
		}
	}
	return nil
}

func parseAheadBehind(v string) (int, int, error) {
	a, b, ok := strings.Cut(v, " ")
	if !ok || !strings.HasPrefix(a, "+") || !strings.HasPrefix(b, "-") {
		return 0, 0, fmt.Errorf("bad branch.ab header %q", v)
	}
	ahead, err1 := strconv.Atoi(a[1:])
	behind, err2 := strconv.Atoi(b[1:])
	if err1 != nil || err2 != nil || ahead < 0 || behind < 0 {
		return 0, 0, fmt.Errorf("bad branch.ab header %q", v)
	}
	return ahead, behind, nil
}

// changed reads a "1" or "2" record: fields fields before the path, XY the
// second.
func (o *GitStatusSummaryOutput) changed(rec string, fields int, from string, hidden func(string) bool) error {
	parts := strings.SplitN(rec, " ", fields)
	if len(parts) < fields || len(parts[1]) != 2 || parts[fields-1] == "" {
		return fmt.Errorf("malformed record %q", rec)
	}
	path, xy := parts[fields-1], parts[1]
	if hidden(path) || (from != "" && hidden(from)) {
		return nil
	}
	for side, code := range []byte{xy[0], xy[1]} {
		if code == '.' {
			continue
		}
		status, ok := changeStatus[code]
		if !ok {
			return fmt.Errorf("unknown status %q in record %q", xy, rec)
		}
		c := GitChange{Path: path, Status: status}
		if code == 'R' || code == 'C' {
			c.From = from
		}
		list, count := &o.Staged, &o.Counts.Staged
		if side == 1 {
			list, count = &o.Unstaged, &o.Counts.Unstaged
		}
		*count++
		if len(*list) < gitListLimit {
			*list = append(*list, c)
		} else {
			o.Truncated = true
		}
	}
	return nil
}

var changeStatus = map[byte]string{'M': "modified", 'A': "added", 'D': "deleted", 'R': "renamed", 'C': "copied", 'T': "type changed"}

var conflictStatus = map[string]string{
	"UU": "both modified", "AA": "both added", "DD": "both deleted",
	"AU": "added by us", "UA": "added by them", "DU": "deleted by us", "UD": "deleted by them",
}

// unmerged reads a "u" record.
func (o *GitStatusSummaryOutput) unmerged(rec string, hidden func(string) bool) error {
	parts := strings.SplitN(rec, " ", 11)
	if len(parts) < 11 || parts[10] == "" {
		return fmt.Errorf("malformed record %q", rec)
	}
	status, ok := conflictStatus[parts[1]]
	if !ok {
		return fmt.Errorf("unknown conflict %q in record %q", parts[1], rec)
	}
	if hidden(parts[10]) {
		return nil
	}
	o.Counts.Conflicted++
	if len(o.Conflicted) < gitListLimit {
		o.Conflicted = append(o.Conflicted, GitConflict{Path: parts[10], Code: parts[1], Status: status})
	} else {
		o.Truncated = true
	}
	return nil
}

// Render is the model's view, close to `git status`'s.
func (o *GitStatusSummaryOutput) Render() tool.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "repository: %s\n", o.RepositoryRoot)
	switch {
	case o.Detached:
		fmt.Fprintf(&b, "HEAD detached at %s\n", short(o.Commit))
	case o.NoCommits:
		fmt.Fprintf(&b, "branch %s (no commits yet)\n", o.Branch)
	default:
		fmt.Fprintf(&b, "branch %s at %s\n", o.Branch, short(o.Commit))
	}
	if o.Upstream != "" {
		fmt.Fprintf(&b, "upstream %s: ahead %d, behind %d\n", o.Upstream, o.Ahead, o.Behind)
	}
	if o.Clean {
		b.WriteString("working tree clean\n")
	}
	writeChanges(&b, "staged", o.Staged, o.Counts.Staged)
	writeChanges(&b, "unstaged", o.Unstaged, o.Counts.Unstaged)
	if len(o.Conflicted) > 0 {
		fmt.Fprintf(&b, "conflicted (%d):\n", o.Counts.Conflicted)
		for _, c := range o.Conflicted {
			fmt.Fprintf(&b, "  %s %s (%s)\n", c.Code, shell.SafeText([]byte(c.Path)), c.Status)
		}
	}
	if len(o.Untracked) > 0 {
		fmt.Fprintf(&b, "untracked (%d):\n", o.Counts.Untracked)
		for _, p := range o.Untracked {
			fmt.Fprintf(&b, "  %s\n", shell.SafeText([]byte(p)))
		}
	}
	if o.Truncated {
		fmt.Fprintf(&b, "(lists cut at %d entries each)\n", gitListLimit)
	}
	return tool.Text(strings.TrimRight(b.String(), "\n"))
}

func writeChanges(b *strings.Builder, title string, cs []GitChange, total int) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(b, "%s (%d):\n", title, total)
	for _, c := range cs {
		fmt.Fprintf(b, "  %-9s %s", c.Status, shell.SafeText([]byte(c.Path)))
		if c.From != "" {
			fmt.Fprintf(b, " (from %s)", shell.SafeText([]byte(c.From)))
		}
		b.WriteByte('\n')
	}
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
