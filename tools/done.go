package tools

import (
	"context"
	_ "embed"

	"github.com/quiverkit/quiver/tool"
)

//go:embed done.md
var doneDescription string

// DoneInput is done's input.
type DoneInput struct {
	Summary string `json:"summary,omitempty" jsonschema:"what you did and what the person should know, in a few sentences"`
}

// DoneOutput is done's typed output: the marker an agent loop looks for.
type DoneOutput struct {
	Done    bool   `json:"done"` // always true
	Summary string `json:"summary,omitempty"`
}

// Done is a typed reference to done, for quiver.Call.
var Done = tool.RefTo[DoneInput, DoneOutput]("done")

// done is an ordinary tool to a host: it changes nothing and returns its
// summary. An agent loop recognises its result with tool.IsDone and stops.
func newDone() *tool.Tool {
	return tool.Func("done", doneDescription,
		func(_ context.Context, _ tool.Context, in DoneInput) (DoneOutput, error) {
			return DoneOutput{Done: true, Summary: in.Summary}, nil
		},
		tool.InProcess(), summaryOf("summary"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}))
}

// DoneSummary implements [tool.Doner]: an agent loop stops on it.
func (o DoneOutput) DoneSummary() (string, bool) { return o.Summary, o.Done }

// Render shows the summary.
func (o DoneOutput) Render() tool.Result {
	if o.Summary == "" {
		return tool.Text("Done.")
	}
	return tool.Text("Done. " + o.Summary)
}
