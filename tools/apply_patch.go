package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/quiverkit/quiver/internal/patch"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

//go:embed apply_patch.md
var applyPatchDescription string

// ApplyPatchInput is apply_patch's input.
type ApplyPatchInput struct {
	Patch string `json:"patch" jsonschema:"the whole patch, '*** Begin Patch' to '*** End Patch', or a unified diff (git diff output). Paths are relative to the workspace root. Hunk lines start with ' ' (context), '-' or '+'; give about 3 context lines around each change, copied exactly from the file, and '@@ text' naming a line above the change when context alone is ambiguous; a file's hunks go in file order. Add File over an existing file, and Update or Delete of a missing one, are refused" minLength:"1"`
}

// ApplyPatchOutput is apply_patch's typed output: what changed, per file.
type ApplyPatchOutput struct {
	Files   []patch.FileResult `json:"files"`
	Added   int                `json:"added"`           // lines added, over all files
	Removed int                `json:"removed"`         // lines removed, over all files
	Notes   []string           `json:"notes,omitempty"` // files whose exec bits the write took away (see execNote)
}

// ApplyPatch is a typed reference to apply_patch, for quiver.Call.
var ApplyPatch = tool.RefTo[ApplyPatchInput, *ApplyPatchOutput]("apply_patch")

func newApplyPatch() *tool.Tool {
	return withPathArgs(tool.Func("apply_patch", applyPatchDescription, applyPatch, patchView,
		tool.InProcess(),
		tool.WithRisk(tool.RiskHigh),
		tool.WithAnnotations(tool.Annotations{Destructive: true}),
		tool.WithSubjects(applyPatchSubjects),
		tool.WritesSubjectPaths()),
		patchPaths)
}

// patchPaths lists the files a patch names, sources and move targets, as
// path arguments of its field "patch". A patch that does not parse names
// none: it fails before it writes anything.
func patchPaths(in ApplyPatchInput) []pathField {
	p, err := patch.Parse(in.Patch)
	if err != nil {
		return nil
	}
	var out []pathField
	for _, f := range p.Files {
		for _, name := range []string{f.Path, f.MoveTo} {
			if name != "" {
				out = append(out, pathField{"patch", name, aFile | newName})
			}
		}
	}
	return out
}

// patchFS is the workspace as a patch is applied to it: every path the
// patch names is a file to write, spelled and refused by pathArg.
type patchFS struct{ *workspace.Workspace }

// Rel is pathArg of field "patch".
func (f patchFS) Rel(p string) (string, error) {
	rel, _, err := pathArg(f.Workspace, "patch", p, aFile|newName)
	return rel, err
}

// applyPatchSubjects names every path the patch touches, move targets
// included, so that rules such as edit(src/**) or apply_patch(.env) match.
// It parses with the same parser as the call, so what the policy sees is
// what would be written; a patch that does not parse has no subjects and
// fails before it writes anything.
func applyPatchSubjects(in ApplyPatchInput) []tool.Subject {
	p, err := patch.Parse(in.Patch)
	if err != nil {
		return nil
	}
	var out []tool.Subject
	for _, path := range p.Paths() {
		out = append(out, tool.Subject{Kind: tool.SubjectPath, Value: path, Field: "patch"})
	}
	return out
}

func applyPatch(ctx context.Context, tc tool.Context, in ApplyPatchInput) (*ApplyPatchOutput, error) {
	p, err := patch.Parse(in.Patch)
	if err != nil {
		return nil, fieldError("patch", err)
	}
	ws, err := workspace.From(ctx, tc)
	if err != nil {
		return nil, err
	}
	plan, err := patch.Prepare(ctx, patchFS{ws}, p)
	if err != nil {
		return nil, err
	}
	before := patchSourceModes(ws, plan.Result().Files)
	res, err := plan.Commit(ctx)
	if err != nil {
		return nil, err
	}
	out := &ApplyPatchOutput{Files: res.Files, Notes: patchExecNotes(ws, res.Files, before)}
	for _, f := range res.Files {
		out.Added += f.Added
		out.Removed += f.Removed
	}
	return out, nil
}

// Render shows one line per file: its operation, path and line counts.
func (o *ApplyPatchOutput) Render() tool.Result {
	var b strings.Builder
	files := "files"
	if len(o.Files) == 1 {
		files = "file"
	}
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "NOTE: %s\n", n)
	}
	fmt.Fprintf(&b, "Patch applied: %d %s changed (+%d -%d)\n", len(o.Files), files, o.Added, o.Removed)
	for _, f := range o.Files {
		name := f.Path
		if f.From != "" {
			name = f.From + " -> " + f.Path
		}
		fmt.Fprintf(&b, "%-6s %s (+%d -%d)\n", f.Op, name, f.Added, f.Removed)
	}
	return tool.Text(strings.TrimSuffix(b.String(), "\n"))
}
