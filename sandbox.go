package quiver

import (
	"fmt"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// WithSandbox sets how the processes the toolkit's tools start are confined
// (package sandbox): the network, extra writable roots, or no confinement at
// all for a host that isolates Quiver itself. Without it every process runs
// under the profile of the write scope, network off.
func WithSandbox(cfg sandbox.Config) Option {
	return func(tk *Toolkit) { tk.boxConfig = cfg }
}

// Sandbox returns the profile of the toolkit's write scope: what a process
// started by an approved call may do.
func (tk *Toolkit) Sandbox() *sandbox.Profile { return tk.box }

// newSandbox derives the toolkit's profile from its write scope, its
// workspace and the policy's protected paths.
func (tk *Toolkit) newSandbox() error {
	box, err := tk.policy.Sandbox(tk.ws.Dir(), tk.boxConfig)
	if err != nil {
		return fmt.Errorf("quiver: %w", err)
	}
	tk.box, tk.inProcessBox = box, box.NoProcess()
	return nil
}

// sandboxFor returns the profile for one call's processes: the scope's,
// except that a call the tool itself rated low-risk (the read-only guess of
// exec_command's classifier) runs read-only whatever the scope, so that a
// wrong guess still cannot write, and that a tool that declared it starts no
// process ([tool.Tool.InProcess]) gets a profile that refuses any, so that a
// wrong declaration fails its call instead of leaving a process behind.
func (tk *Toolkit) sandboxFor(c *call) *sandbox.Profile {
	switch {
	case c.tool.InProcess:
		return tk.inProcessBox
	case c.tool.CallRisk != nil && c.risk == tool.RiskLow:
		return tk.box.With(sandbox.ReadOnly)
	}
	return tk.box
}
