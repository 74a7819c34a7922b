package tools

import (
	"context"
	_ "embed"

	"github.com/quiverkit/quiver/tool"
)

//go:embed write_file.md
var writeFileDescription string

// WriteFileInput is write_file's input.
type WriteFileInput struct {
	Path           string `json:"path" jsonschema:"the file to write, relative to the workspace root" minLength:"1"`
	Content        string `json:"content" jsonschema:"the complete new content, exactly as it should be on disk (end it with a newline if the file should have one)"`
	CreateDirs     *bool  `json:"create_dirs,omitempty" jsonschema:"create missing parent directories (default true)" default:"true"`
	ExpectedSHA256 string `json:"expected_sha256,omitempty" jsonschema:"overwrite only if the file's current content has this SHA-256 (read_file's content_sha256); not needed after read_file" pattern:"^[0-9a-fA-F]{64}$"`
}

// WriteFileOutput is write_file's typed output.
type WriteFileOutput struct {
	Path    string `json:"path"`
	Bytes   int    `json:"bytes"`
	Created bool   `json:"created"`        // the file did not exist before
	SHA256  string `json:"sha256"`         // of the content written
	Note    string `json:"note,omitempty"` // set when the write took the file's exec bits away (see execNote)
}

// WriteFile is a typed reference to write_file, for quiver.Call.
var WriteFile = tool.RefTo[WriteFileInput, *WriteFileOutput]("write_file")

func newWriteFile() *tool.Tool {
	return withPathArgs(tool.Func("write_file", writeFileDescription, writeFile, writeView,
		tool.InProcess(),
		tool.WithRisk(tool.RiskHigh),
		tool.WithAnnotations(tool.Annotations{Destructive: true, Idempotent: true}),
		tool.WithSubjects(func(in WriteFileInput) []tool.Subject { return tool.PathSubject(in.Path) }),
		tool.WritesSubjectPaths()),
		onePath("path", aFile|newName, func(in WriteFileInput) string { return in.Path }))
}

func writeFile(ctx context.Context, tc tool.Context, in WriteFileInput) (*WriteFileOutput, error) {
	ws, rel, err := argInWorkspace(ctx, tc, "path", in.Path, aFile|newName)
	if err != nil {
		return nil, err
	}
	out := &WriteFileOutput{Path: rel, Bytes: len(in.Content), SHA256: sha256Hex([]byte(in.Content))}
	exists, err := regularFile(ws, rel)
	if err != nil {
		return nil, err
	}
	if exists {
		current, err := hashFile(ws, rel)
		if err != nil {
			return nil, err
		}
		if current == out.SHA256 {
			recordRead(ctx, tc, rel, current)
			return out, nil // already this content: nothing can be lost, nothing to write
		}
		if err := checkOverwrite(ctx, tc, rel, current, in.ExpectedSHA256); err != nil {
			return nil, err
		}
	} else {
		if in.ExpectedSHA256 != "" {
			return nil, tool.Errorf(tool.CodeExecutionFailed, "%s does not exist, but expected_sha256 says it should; check the path, or leave expected_sha256 out to create the file", rel)
		}
		if err := ensureParent(ws, rel, in.CreateDirs == nil || *in.CreateDirs); err != nil {
			return nil, err
		}
		out.Created = true
	}
	before := fileMode(ws, rel)
	if err := ws.WriteFile(rel, []byte(in.Content), 0o644); err != nil {
		return nil, err
	}
	out.Note = execNote(ws, rel, before)
	recordRead(ctx, tc, rel, out.SHA256)
	return out, nil
}
