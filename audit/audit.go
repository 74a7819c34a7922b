// Package audit records one line per tool call, whatever its outcome, so that
// a host can answer "what did the agent run, who allowed it, and what came of
// it" after the fact.
//
// A record says what ran, not only that something did: the call's arguments
// and, for exec_command, every program the command line started, as it was
// started (after expansion, so `git grep "-O$CMD"` shows the pager it ran).
// Both pass through a [Redactor] first: values of secret names are never
// written, and a record stays a few kilobytes whatever the call's size.
package audit

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/quiverkit/quiver/sandbox/netproxy"
)

// Record is one call's audit entry.
type Record struct {
	Time       time.Time `json:"time"`
	CallID     string    `json:"call_id"`
	Tool       string    `json:"tool"`
	Provider   string    `json:"provider,omitempty"`
	Job        string    `json:"job,omitempty"`      // the background job or session of a job's own record
	Decision   string    `json:"decision,omitempty"` // allow | ask | deny, empty when the call failed before the policy decided
	Rule       string    `json:"rule,omitempty"`     // the rule that decided
	Approver   string    `json:"approver,omitempty"` // who approved or refused an ask
	DurationMS float64   `json:"duration_ms"`
	Outcome    string    `json:"outcome"` // "ok", or the error code; "closed" for a provider's or a job's own record (see provider.Audited)
	OutputSize int       `json:"output_size"`
	OutputRef  string    `json:"output_ref,omitempty"`

	// Arguments are the call's arguments as the tool received them (after
	// alias renames), secrets redacted and long values cut (see Redactor).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Commands are the programs an exec_command call started, in order,
	// each one shell-quoted line as it ran, secrets redacted. Programs a
	// background job starts after the call has returned are not in it.
	Commands []string `json:"commands,omitempty"`
	// CommandsOmitted counts the programs started beyond MaxCommands.
	CommandsOmitted int `json:"commands_omitted,omitempty"`
	// Hooks are the operator's hooks that ran for the call (package
	// hooks), in the order they ran.
	Hooks []Hook `json:"hooks,omitempty"`
	// Hosts are the hosts the call's confined processes asked the network
	// proxy for ([sandbox] network as a list), allowed or refused, in the
	// order first asked, each once per outcome with a count. A background
	// job or an interactive session runs on after its call has returned:
	// the requests it makes from then on are in the record of the next
	// call that observes it (write_stdin, exec_output, exec_kill), each
	// once; those no call read, when the job is dropped (its session's
	// end, the toolkit's close, a finished job forgotten), in a record of
	// the job's own: no tool, Job its id, outcome "closed". So are an MCP
	// server's between calls in the next call to it, and those no call
	// carried in its own record when it closes (Provider its ID).
	Hosts []Host `json:"hosts,omitempty"`
	// HostsOmitted counts the requests for hosts beyond MaxHosts.
	HostsOmitted int `json:"hosts_omitted,omitempty"`
}

// Host is a host a call's processes asked the network proxy for.
type Host struct {
	Host    string `json:"host"`           // as the proxy compares it (lower case, punycode), or the malformed target
	Port    string `json:"port,omitempty"` // the port asked for
	Method  string `json:"method"`         // CONNECT, or the HTTP method of a plain request
	Allowed bool   `json:"allowed"`
	Refused string `json:"refused,omitempty"` // why not: unlisted, a non-public address, a Host header naming another host
	Count   int    `json:"count"`             // how many such requests
}

// MaxHosts bounds Record.Hosts: a program that asks for a million names
// is recorded as its first MaxHosts and a count.
const MaxHosts = 100

// Hosts lists a tally of requests to the network proxy (see
// netproxy.Tally) as Record.Hosts and HostsOmitted do: the first MaxHosts
// entries, long strings cut, and a count of the requests beyond.
func Hosts(counts []netproxy.Count, omitted int) ([]Host, int) {
	var hosts []Host
	for i, c := range counts {
		if i == MaxHosts {
			for _, rest := range counts[i:] {
				omitted += rest.N
			}
			break
		}
		hosts = append(hosts, Host{Host: Clip(c.Host, MaxString), Port: c.Port, Method: Clip(c.Method, MaxString),
			Allowed: c.Allowed, Refused: Clip(c.Refused, MaxString), Count: c.N})
	}
	return hosts, omitted
}

// Hook is one hook's run for a call.
type Hook struct {
	Event      string  `json:"event"`              // PreToolUse, PostToolUse, PostToolUseFailure
	Hook       string  `json:"hook"`               // its name, or its command
	Decision   string  `json:"decision,omitempty"` // allow, ask, deny; block after the call
	Rewrote    bool    `json:"rewrote,omitempty"`  // it replaced the call's input
	DurationMS float64 `json:"duration_ms"`
	Error      string  `json:"error,omitempty"` // why it failed: it could not start, timed out, printed too much or garbage, exited neither 0 nor 2
}

// MaxCommands bounds Record.Commands: a loop that starts a million
// programs is recorded as its first MaxCommands and a count.
const MaxCommands = 100

// Sink receives audit records. Implementations must be safe for concurrent
// use; the pipeline logs (and does not fail the call on) a Sink's error.
type Sink interface {
	Record(ctx context.Context, r Record) error
}

// Discard drops every record.
var Discard Sink = discard{}

type discard struct{}

func (discard) Record(context.Context, Record) error { return nil }

// JSONLines writes each record as one JSON line to W.
type JSONLines struct {
	mu sync.Mutex
	w  io.Writer
}

// NewJSONLines returns a sink writing to w.
func NewJSONLines(w io.Writer) *JSONLines { return &JSONLines{w: w} }

// Record implements Sink.
func (j *JSONLines) Record(_ context.Context, r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	_, err = j.w.Write(b)
	return err
}

// Memory keeps records in memory, for tests and UIs.
type Memory struct {
	mu      sync.Mutex
	records []Record
}

// Record implements Sink.
func (m *Memory) Record(_ context.Context, r Record) error {
	m.mu.Lock()
	m.records = append(m.records, r)
	m.mu.Unlock()
	return nil
}

// Records returns a copy of what was recorded.
func (m *Memory) Records() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Record(nil), m.records...)
}
