package quiver

import (
	"strings"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// backendGate refuses, when a read-only backend serves the tools' files
// ([WithBackend]), a tool that could write them or start a process in the
// workspace: one not annotated ReadOnly (write_file, edit, apply_patch,
// exec_command, custom tools), or one that is not InProcess
// (git_status_summary, the job tools, script tools). Those would work on
// the directory on disk, not on the files the model reads, or fail. An MCP
// server's tools are offered as ever: they work on the server's side and
// never see the workspace.
func (tk *Toolkit) backendGate(e provider.Entry) error {
	if tk.backend == nil || strings.HasPrefix(e.Provider, "mcp:") {
		return nil
	}
	t := e.Tool
	if t.Annotations.ReadOnly && t.InProcess {
		return nil
	}
	return &tool.Error{Code: tool.CodeToolNotAllowed, Err: workspace.ErrReadOnly,
		Message: "tool " + `"` + t.Name + `"` + " is not offered: the workspace is " + tk.backend.Name() +
			", which is read-only; the read and search tools work on it"}
}

// Offer is what `quiver tools` shows of e: the policy's offer
// ([policy.Policy.Offer]), or a deny naming the read-only backend when the
// backend cannot serve e's tool, which the pipeline refuses (backendGate)
// whatever the rules say.
func (tk *Toolkit) Offer(e provider.Entry) policy.Offer {
	if err := tk.backendGate(e); err != nil {
		return policy.Offer{Decision: policy.Deny, Rule: "the workspace is " + tk.backend.Name() + ", which is read-only"}
	}
	return tk.policy.Offer(e.Tool)
}
