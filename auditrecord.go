package quiver

import (
	"sync"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/sandbox"
)

// auditConfig is the audit step's settings.
type auditConfig struct {
	redactor *audit.Redactor // nil: audit.NewRedactor()
}

var defaultRedactor = audit.NewRedactor()

// WithAuditRedact adds names to [audit.DefaultSecretNames]: the values of
// arguments, environment entries and options so named never reach an audit
// record ([audit] redact in quiver.toml). The defaults always apply.
func WithAuditRedact(names ...string) Option {
	return func(tk *Toolkit) { tk.redactor = audit.NewRedactor(names...) }
}

func (tk *Toolkit) auditRedactor() *audit.Redactor {
	if tk.redactor == nil {
		return defaultRedactor
	}
	return tk.redactor
}

// quoteCall puts in the call's audit record what it was asked to do and,
// for exec_command, what it ran: the arguments as the tool received them
// and the programs it started, both through the toolkit's Redactor. Nothing
// is quoted when records are discarded, so the default toolkit pays nothing.
func (tk *Toolkit) quoteCall(c *call, r *audit.Record) {
	if tk.audit == audit.Discard {
		return
	}
	args := c.args
	if args == nil { // the call failed before resolve
		args = c.Arguments
	}
	if len(args) > 0 {
		r.Arguments = tk.auditRedactor().Arguments(args)
	}
	r.Commands, r.CommandsOmitted = c.ran.list()
	r.Hosts, r.HostsOmitted = audit.Hosts(c.hosts.List())
}

// Ran implements shell.Recorder: the command gate, which the call itself
// is, is told of every program that passed it, just before it starts.
func (c *call) Ran(argv []string) {
	if c.tk.audit == audit.Discard {
		return
	}
	c.ran.add(audit.Clip(shell.Join(c.tk.auditRedactor().Argv(argv)), audit.MaxString))
}

// commandLog is the programs one call started, as its audit record lists
// them: the first audit.MaxCommands, and a count of the rest. Programs may
// start from several goroutines (background statements of a command line).
type commandLog struct {
	mu      sync.Mutex
	lines   []string
	omitted int
}

func (l *commandLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == audit.MaxCommands {
		l.omitted++
		return
	}
	l.lines = append(l.lines, line)
}

func (l *commandLog) list() ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...), l.omitted
}

// recordingHosts returns box, counting into the call's audit record every
// request its processes make to the network proxy, and the requests the
// processes it observes made since they were last observed (a job, a
// session, an MCP server: see sandbox.Profile.Contacts); box itself when
// records are discarded.
func (tk *Toolkit) recordingHosts(c *call, box *sandbox.Profile) *sandbox.Profile {
	if tk.audit == audit.Discard || box == nil {
		return box
	}
	c.hosts.Max = audit.MaxHosts
	return box.RecordingContacts(&c.hosts)
}
