package tools

import (
	"context"
	_ "embed"

	"github.com/quiverkit/quiver/tool"
)

//go:embed exec_kill.md
var execKillDescription string

// ExecKillInput is exec_kill's input.
type ExecKillInput struct {
	JobID string `json:"job_id" jsonschema:"the job id exec_command returned (job_...), exactly; only your session's jobs are found" minLength:"1"`
}

// ExecKill is a typed reference to exec_kill, for quiver.Call.
var ExecKill = tool.RefTo[ExecKillInput, *ExecJobOutput]("exec_kill")

// exec_kill only stops what exec_command started in this toolkit: low risk,
// but not read-only (the read-only scope keeps it out along with exec).
func newExecKill() *tool.Tool {
	return tool.Func("exec_kill", execKillDescription, execKill, summaryOf("job_id"),
		tool.WithRisk(tool.RiskLow),
		tool.WithAnnotations(tool.Annotations{Idempotent: true}))
}

func execKill(ctx context.Context, tc tool.Context, in ExecKillInput) (*ExecJobOutput, error) {
	job, err := findJob(ctx, tc, "job_id", in.JobID)
	if err != nil {
		return nil, err
	}
	split, err := budgetSplit(ctx, tc)
	if err != nil {
		return nil, err
	}
	snap, err := job.Kill(split)
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "%w", err)
	}
	return jobAnswer(ctx, tc, job, snap)
}
