package tool

import (
	"context"
	"sync"
	"unicode/utf8"
)

// A long call can tell its host how it is doing while it runs: the host
// puts a [Progress] on the call's context ([WithProgress]) and asks it for
// the call's status whenever it reports (the MCP server, every few seconds,
// as progress notifications to a client that gave a progress token; such
// clients reset their request timeout on each, so a long build is not given
// up on). The tool registers where its status comes from with [SetStatus]
// (exec_command: the tail of the output so far). Pulling the status when the
// host reports, rather than pushing it as the tool works, costs a tool that
// prints a gigabyte nothing per write.

// MaxStatusBytes bounds a status as [Progress.Status] returns it: a report
// is a glance at a running call, not its output, which the call's result
// carries whole.
const MaxStatusBytes = 1024

// Progress is where a running call's status is read from. The zero value
// is ready; it is safe for concurrent use.
type Progress struct {
	mu     sync.Mutex
	status func() string
}

type progressKey struct{}

// WithProgress returns ctx giving the calls made with it p to report to.
func WithProgress(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// SetStatus registers fn as the status of the call ctx belongs to, asked
// for each time the host reports, from another goroutine; clear unregisters
// it (call it before fn's data goes away). Without a host that reports,
// SetStatus does nothing.
func SetStatus(ctx context.Context, fn func() string) (clear func()) {
	p, _ := ctx.Value(progressKey{}).(*Progress)
	if p == nil {
		return func() {}
	}
	p.mu.Lock()
	p.status = fn
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.status = nil
		p.mu.Unlock()
	}
}

// Status returns the call's status, its last [MaxStatusBytes] bytes when
// longer (cut at a character boundary), or "" when the tool registered none.
func (p *Progress) Status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.status == nil {
		return ""
	}
	s := p.status()
	if len(s) <= MaxStatusBytes {
		return s
	}
	s = s[len(s)-MaxStatusBytes:]
	for i := 0; i < utf8.UTFMax && i < len(s); i++ {
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}
