package quiver

import "github.com/quiverkit/quiver/policy"

// WithApproverWrapped replaces the approver the options before it chose with
// wrap(that approver): a host puts reviewers in front of whoever decides
// otherwise (the quiver CLI's [review] does, in front of the terminal prompt
// or the MCP client's user). wrap receives nil when no approver was set; it
// must then refuse what it cannot decide itself, as the default
// approve.Deny would. Give it after the WithApprover it wraps.
func WithApproverWrapped(wrap func(inner policy.Approver) policy.Approver) Option {
	return func(tk *Toolkit) { tk.approver = wrap(tk.approver) }
}
