package quiver

import (
	"sync"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/netproxy"
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
	r.Hosts, r.HostsOmitted = c.hosts.list()
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

// recordingHosts returns box, recording into the call's audit record
// every request its processes make to the network proxy; box itself when
// it has no proxy or records are discarded.
func (tk *Toolkit) recordingHosts(c *call, box *sandbox.Profile) *sandbox.Profile {
	if tk.audit == audit.Discard || !box.Proxied() {
		return box
	}
	return box.RecordingContacts(c.hosts.add)
}

// hostLog is the hosts one call's processes asked the proxy for, as its
// audit record lists them: one entry per host, port, method and outcome,
// with a count; the first audit.MaxHosts entries, and a count of the
// requests beyond. Requests come from the proxy's goroutines.
type hostLog struct {
	mu      sync.Mutex
	hosts   []audit.Host
	omitted int
}

func (l *hostLog) add(c netproxy.Contact) {
	h := audit.Host{Host: audit.Clip(c.Host, audit.MaxString), Port: c.Port, Method: audit.Clip(c.Method, audit.MaxString), Allowed: c.Allowed, Refused: audit.Clip(c.Refused, audit.MaxString)}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.hosts {
		if same := l.hosts[i]; same.Host == h.Host && same.Port == h.Port && same.Method == h.Method && same.Allowed == h.Allowed && same.Refused == h.Refused {
			l.hosts[i].Count++
			return
		}
	}
	if len(l.hosts) == audit.MaxHosts {
		l.omitted++
		return
	}
	h.Count = 1
	l.hosts = append(l.hosts, h)
}

func (l *hostLog) list() ([]audit.Host, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]audit.Host(nil), l.hosts...), l.omitted
}
