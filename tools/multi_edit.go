package tools

import (
	"context"
	_ "embed"

	"github.com/quiverkit/quiver/tool"
)

//go:embed multi_edit.md
var multiEditDescription string

// MultiEditInput is multi_edit's input.
type MultiEditInput struct {
	Path           string          `json:"path" jsonschema:"the file to edit, relative to the workspace root" minLength:"1"`
	Edits          []MultiEditItem `json:"edits" jsonschema:"the edits, applied in order, each to the result of the ones before; if one fails, none is applied and the error names it as edits[N]" minItems:"1"`
	ExpectedSHA256 string          `json:"expected_sha256,omitempty" jsonschema:"edit only if the file's current content has this SHA-256 (read_file's content_sha256)" pattern:"^[0-9a-fA-F]{64}$"`
	DryRun         bool            `json:"dry_run,omitempty" jsonschema:"return the diff and write nothing"`
}

// MultiEditItem is one replacement of a multi_edit, with edit's meaning.
type MultiEditItem struct {
	OldString            string `json:"old_string" jsonschema:"the text to replace, as it is after the edits before this one; empty only in the first edit, to create a new file"`
	NewString            string `json:"new_string" jsonschema:"the text to put in its place"`
	ReplaceAll           bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence of old_string"`
	ExpectedReplacements int    `json:"expected_replacements,omitempty" jsonschema:"the number of occurrences there must be; all of them are replaced" minimum:"1"`
}

// MultiEditOutput is multi_edit's typed output.
type MultiEditOutput struct {
	Path         string     `json:"path"`
	Replacements int        `json:"replacements"` // over all edits
	Edits        []EditStep `json:"edits"`        // what each edit did, in order
	Diff         string     `json:"diff"`         // one unified diff of all the edits together
	Created      bool       `json:"created,omitempty"`
	DryRun       bool       `json:"dry_run,omitempty"`
	SHA256       string     `json:"sha256"`
	Note         string     `json:"note,omitempty"` // set when the write took the file's exec bits away (see execNote)
}

// MultiEdit is a typed reference to multi_edit, for quiver.Call.
var MultiEdit = tool.RefTo[MultiEditInput, *MultiEditOutput]("multi_edit")

func newMultiEdit() *tool.Tool {
	return withPathArgs(tool.Func("multi_edit", multiEditDescription, multiEdit, multiEditView,
		tool.InProcess(),
		tool.WithRisk(tool.RiskHigh),
		tool.WithAnnotations(tool.Annotations{Destructive: true}),
		tool.WithSubjects(func(in MultiEditInput) []tool.Subject { return tool.PathSubject(in.Path) }),
		tool.WritesSubjectPaths()),
		onePath("path", aFile|newName, func(in MultiEditInput) string { return in.Path }))
}

func multiEdit(ctx context.Context, tc tool.Context, in MultiEditInput) (*MultiEditOutput, error) {
	if len(in.Edits) == 0 {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"edits\": give at least one edit")
	}
	ops := make([]editOp, len(in.Edits))
	for i, e := range in.Edits {
		if i > 0 && e.OldString == "" {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"edits[%d].old_string\" is empty; only the first edit may have an empty old_string (to create the file)", i)
		}
		ops[i] = editOp{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll, ExpectedReplacements: e.ExpectedReplacements}
	}
	res, err := runEdits(ctx, tc, in.Path, ops, in.ExpectedSHA256, in.DryRun)
	if err != nil {
		return nil, err
	}
	out := &MultiEditOutput{Path: res.rel, Edits: res.steps, Diff: res.diff, Created: res.created, DryRun: in.DryRun, SHA256: res.sum, Note: res.note}
	for _, s := range res.steps {
		out.Replacements += s.Replacements
	}
	return out, nil
}

// Render shows a summary, a warning when some old_string did not match
// exactly, and the diff of all edits.
func (o *MultiEditOutput) Render() tool.Result {
	strategies := make([]string, len(o.Edits))
	for i, s := range o.Edits {
		strategies[i] = s.Strategy
	}
	return tool.Text(withNote(o.Note, renderEdit(o.Path, o.Replacements, strategies, o.Created, o.DryRun, o.Diff)))
}
