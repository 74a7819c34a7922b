package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/quiverkit/quiver/internal/edit"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed edit.md
var editDescription string

// EditInput is edit's input.
type EditInput struct {
	Path                 string `json:"path" jsonschema:"the file to edit, relative to the workspace root; binary files and files over 128 MiB are refused (use apply_patch)" minLength:"1"`
	OldString            string `json:"old_string" jsonschema:"the text to replace, with enough surrounding lines to occur exactly once (several matches are refused, naming their lines); write line breaks as plain \\n; empty creates a new file"`
	NewString            string `json:"new_string" jsonschema:"the text to put in its place; must differ from old_string"`
	ReplaceAll           bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence (default false: old_string must occur once)"`
	ExpectedReplacements int    `json:"expected_replacements,omitempty" jsonschema:"the number of occurrences there must be; all of them are replaced" minimum:"1"`
	ExpectedSHA256       string `json:"expected_sha256,omitempty" jsonschema:"edit only if the file's current content has this SHA-256 (read_file's content_sha256)" pattern:"^[0-9a-fA-F]{64}$"`
	DryRun               bool   `json:"dry_run,omitempty" jsonschema:"return the diff and write nothing"`
}

// EditOutput is edit's typed output.
type EditOutput struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
	Strategy     string `json:"strategy"` // how old_string was found: exact, line-trimmed, ... (see internal/edit); "create" for a new file
	Lines        []int  `json:"lines"`    // the first line of each replacement in the old file
	Diff         string `json:"diff"`     // unified diff of the change
	Created      bool   `json:"created,omitempty"`
	DryRun       bool   `json:"dry_run,omitempty"`
	SHA256       string `json:"sha256"`         // of the file after the edit (as it would be, for a dry run)
	Note         string `json:"note,omitempty"` // set when the write took the file's exec bits away (see execNote)
}

// Edit is a typed reference to edit, for quiver.Call.
var Edit = tool.RefTo[EditInput, *EditOutput]("edit")

func newEdit() *tool.Tool {
	return withPathArgs(tool.Func("edit", editDescription, editFile, editView,
		tool.InProcess(),
		tool.WithRisk(tool.RiskHigh),
		tool.WithAnnotations(tool.Annotations{Destructive: true}),
		tool.WithSubjects(func(in EditInput) []tool.Subject { return tool.PathSubject(in.Path) }),
		tool.WritesSubjectPaths()),
		onePath("path", aFile|newName, func(in EditInput) string { return in.Path }))
}

func editFile(ctx context.Context, tc tool.Context, in EditInput) (*EditOutput, error) {
	op := editOp{Old: in.OldString, New: in.NewString, ReplaceAll: in.ReplaceAll, ExpectedReplacements: in.ExpectedReplacements}
	res, err := runEdits(ctx, tc, in.Path, []editOp{op}, in.ExpectedSHA256, in.DryRun)
	if err != nil {
		return nil, err
	}
	return &EditOutput{
		Path: res.rel, Replacements: res.steps[0].Replacements, Strategy: res.steps[0].Strategy,
		Lines: res.steps[0].Lines, Diff: res.diff, Created: res.created, DryRun: in.DryRun, SHA256: res.sum, Note: res.note,
	}, nil
}

// Render shows a summary line, a warning when old_string did not match
// exactly, and the diff.
func (o *EditOutput) Render() tool.Result {
	return tool.Text(withNote(o.Note, renderEdit(o.Path, o.Replacements, []string{o.Strategy}, o.Created, o.DryRun, o.Diff)))
}

// editOp is one replacement of edit or multi_edit.
type editOp struct {
	Old, New             string
	ReplaceAll           bool
	ExpectedReplacements int
}

// EditStep is what one replacement of edit or multi_edit did.
type EditStep struct {
	Replacements int    `json:"replacements"`
	Strategy     string `json:"strategy"` // how old_string was found, or "create"
	Lines        []int  `json:"lines"`    // the first line of each replacement, in the text the edit was applied to
}

// editResult is the outcome of a run of replacements on one file.
type editResult struct {
	rel     string
	steps   []EditStep
	diff    string
	created bool
	sum     string
	note    string // see execNote
}

// maxEditBytes bounds the files edit works on: it holds a file in memory a
// few times over (old text, new text, encoded bytes).
const maxEditBytes = 128 << 20

// runEdits applies ops one after another to the file p, all or nothing, and
// writes the result atomically unless dryRun. The first op may create the
// file (empty old_string, file absent).
func runEdits(ctx context.Context, tc tool.Context, p string, ops []editOp, expectedSum string, dryRun bool) (*editResult, error) {
	ws, rel, err := argInWorkspace(ctx, tc, "path", p, aFile|newName)
	if err != nil {
		return nil, err
	}
	res := &editResult{rel: rel}
	raw, exists, err := loadForEdit(ws, rel)
	if err != nil {
		return nil, err
	}
	if err := checkExpectedSum(rel, raw, exists, expectedSum); err != nil {
		return nil, err
	}
	var text string
	format := edit.Format{}
	if exists {
		text, format = edit.Decode(raw)
	}
	var steps [][]edit.Change
	for i, op := range ops {
		if i == 0 && op.Old == "" {
			if exists {
				return nil, opError(ops, i, tool.Errorf(tool.CodeInvalidArguments, "%s already exists; an empty old_string creates a new file. To change the file, put the text to replace in old_string (or use write_file after read_file to replace it all)", rel))
			}
			res.created = true
			steps = append(steps, []edit.Change{{New: op.New}})
			res.steps = append(res.steps, EditStep{Replacements: 1, Strategy: "create", Lines: []int{1}})
			text = op.New
			continue
		}
		if !exists && !res.created {
			return nil, tool.Errorf(tool.CodeExecutionFailed, "%s does not exist; to create it, pass an empty old_string and the file's content as new_string", rel)
		}
		m, err := edit.Find(text, edit.Edit{Old: format.Normalize(op.Old), New: format.Normalize(op.New), ReplaceAll: op.ReplaceAll, ExpectedReplacements: op.ExpectedReplacements})
		if err != nil {
			return nil, opError(ops, i, matchError(rel, err, raw, op.Old))
		}
		steps = append(steps, m.Changes)
		res.steps = append(res.steps, EditStep{Replacements: len(m.Changes), Strategy: string(m.Strategy), Lines: m.Lines})
		text = edit.Apply(text, m.Changes)
	}
	return res, commitEdits(ctx, tc, ws, res, raw, format, text, steps, dryRun)
}

// commitEdits draws the diff of all steps against the original file and, unless
// dryRun, writes the new content.
func commitEdits(ctx context.Context, tc tool.Context, ws *workspace.Workspace, res *editResult, raw []byte, format edit.Format, text string, steps [][]edit.Change, dryRun bool) error {
	var orig string
	oldName := path.Join("a", res.rel)
	if res.created {
		oldName = "/dev/null"
	} else {
		orig, _ = edit.Decode(raw)
	}
	changes := edit.Compose(len(orig), steps...)
	res.diff = edit.Unified(oldName, path.Join("b", res.rel), orig, changes)
	content := format.Encode(text)
	res.sum = sha256Hex(content)
	if dryRun {
		return nil
	}
	if res.created {
		if err := ensureParent(ws, res.rel, true); err != nil {
			return err
		}
	}
	before := fileMode(ws, res.rel)
	if err := ws.WriteFile(res.rel, content, 0o644); err != nil {
		return err
	}
	res.note = execNote(ws, res.rel, before)
	recordRead(ctx, tc, res.rel, res.sum)
	return nil
}

// loadForEdit reads the file rel whole. A missing file is not an error
// (exists false): edit may create it.
func loadForEdit(ws *workspace.Workspace, rel string) ([]byte, bool, error) {
	exists, err := regularFile(ws, rel)
	if err != nil || !exists {
		return nil, false, err
	}
	f, err := ws.Open(rel)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxEditBytes+1))
	if err != nil {
		return nil, false, tool.Errorf(tool.CodeExecutionFailed, "read %s: %w", rel, err)
	}
	if len(raw) > maxEditBytes {
		return nil, false, tool.Errorf(tool.CodeExecutionFailed, "%s is larger than %d MiB, too large for edit; use apply_patch, which streams", rel, maxEditBytes>>20)
	}
	if bytes.IndexByte(raw[:min(len(raw), 8000)], 0) >= 0 {
		return nil, false, tool.Errorf(tool.CodeExecutionFailed, "%s is a binary file (it contains NUL bytes); edit changes text files only", rel)
	}
	return raw, true, nil
}

func checkExpectedSum(rel string, raw []byte, exists bool, expected string) error {
	switch {
	case expected == "":
		return nil
	case !exists:
		return tool.Errorf(tool.CodeExecutionFailed, "%s does not exist, but expected_sha256 says it should; check the path", rel)
	}
	if current := sha256Hex(raw); !strings.EqualFold(current, expected) {
		return changedError(rel, current, expected, "expected_sha256")
	}
	return nil
}

// matchError turns an error of the matcher into a *tool.Error that tells the
// model what to do next. raw is the file and old the old_string, for an
// old_string not found where the file holds bytes that are not UTF-8:
// copying the lines again cannot help then (see nonUTF8Hint).
func matchError(rel string, err error, raw []byte, old string) *tool.Error {
	var nf *edit.NotFoundError
	var amb *edit.AmbiguousError
	var cnt *edit.CountError
	switch {
	case errors.As(err, &nf):
		e := tool.Errorf(tool.CodeInvalidArguments, "%s: %w", rel, err)
		if nf.Closest != nil {
			e.WithDetail("closest_first_line", nf.Closest.First).WithDetail("closest_last_line", nf.Closest.Last)
		}
		if runs := nonUTF8Runs(raw, old, nf); len(runs) > 0 {
			if !strings.HasSuffix(e.Message, "\n") {
				e.Message += " "
			}
			e.Message += nonUTF8Advice(runs)
			return e.WithDetail("non_utf8_offsets", offsets(runs))
		}
		if nf.Closest != nil {
			e.Message += fmt.Sprintf("Copy old_string from these lines exactly, or read them again with read_file (offset %d, limit %d).", nf.Closest.First, nf.Closest.Last-nf.Closest.First+1)
		}
		return e
	case errors.As(err, &amb):
		return tool.Errorf(tool.CodeInvalidArguments, "%s: %w", rel, err).WithDetail("lines", amb.Lines)
	case errors.As(err, &cnt):
		return tool.Errorf(tool.CodeInvalidArguments, "%s: %w", rel, err).WithDetail("lines", cnt.Lines)
	}
	return tool.Errorf(tool.CodeInvalidArguments, "%s: %w", rel, err)
}

// opError names the failing replacement of a multi_edit and says that
// nothing was written.
func opError(ops []editOp, i int, e *tool.Error) *tool.Error {
	if len(ops) > 1 {
		e.Message = fmt.Sprintf("edits[%d]: %s (no edit was applied: multi_edit is all or nothing)", i, e.Message)
		e.WithDetail("edit_index", i)
	}
	return e
}

// renderEdit is the model's view of an edit or multi_edit.
func renderEdit(rel string, replacements int, strategies []string, created, dryRun bool, diff string) string {
	var b strings.Builder
	verb := "Edited"
	switch {
	case dryRun && created:
		verb = "Dry run, nothing written: would create"
	case dryRun:
		verb = "Dry run, nothing written: would edit"
	case created:
		verb = "Created"
	}
	fmt.Fprintf(&b, "%s %s", verb, rel)
	if !created || replacements > 1 {
		fmt.Fprintf(&b, " (%d replacement%s)", replacements, plural(replacements))
	}
	b.WriteString(".\n")
	var loose []string
	for _, s := range strategies {
		if s != string(edit.Exact) && s != "create" && !containsString(loose, s) {
			loose = append(loose, s)
		}
	}
	if len(loose) > 0 {
		fmt.Fprintf(&b, "old_string did not match the file exactly; it was matched %s. Check the diff.\n", strings.Join(loose, ", "))
	}
	if diff == "" {
		b.WriteString("(the file is unchanged)\n")
	}
	b.WriteString(diff)
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
