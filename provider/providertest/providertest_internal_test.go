package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/tool"
)

// stub is a tool that keeps every rule: the broken providers below change
// one thing of it, or of the provider listing it.
func stub(name string) *tool.Tool {
	return &tool.Tool{Name: name, Description: "A stand-in.", Risk: tool.RiskLow,
		InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"x": {Type: "string"}}},
		Execute: func(context.Context, tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text("ok"), nil
		}}
}

// good keeps the contract, with every optional interface: Scoped,
// Invalidator and io.Closer.
type good struct {
	tools  []*tool.Tool
	closed atomic.Bool
}

func newGood(names ...string) *good {
	g := &good{}
	for _, n := range names {
		g.tools = append(g.tools, stub(n))
	}
	return g
}

func (*good) ID() string           { return "fake" }
func (*good) Priority() int        { return 1 }
func (*good) SetInvalidate(func()) {}
func (*good) MayOffer(name string) bool {
	return strings.HasPrefix(name, "fake_")
}
func (g *good) Close() error { g.closed.Store(true); return nil }
func (g *good) Tools(context.Context) ([]*tool.Tool, error) {
	if g.closed.Load() {
		return nil, errors.New("closed")
	}
	return g.tools, nil
}

// plain keeps the contract with none of the optional interfaces.
type plain struct{ tools []*tool.Tool }

func (plain) ID() string                                    { return "plain" }
func (plain) Priority() int                                 { return 0 }
func (p plain) Tools(context.Context) ([]*tool.Tool, error) { return p.tools, nil }

func TestKeepingTheContractPasses(t *testing.T) {
	for _, p := range []provider.Provider{
		newGood("fake_a", "fake_b"),
		newGood(), // no tools is a catalogue too
		plain{tools: []*tool.Tool{stub("a"), tool.Func("typed", "A typed tool.", func(context.Context, tool.Context, struct {
			N int `json:"n"`
		}) (int, error) {
			return 0, nil
		})}},
		&invalidating{good: newGood("fake_a")},
	} {
		if err := TestProvider(t.Context(), p); err != nil {
			t.Errorf("%s (%T): %v", p.ID(), p, err)
		}
	}
	Run(t, func(*testing.T) provider.Provider { return newGood("fake_a") })
}

// Each broken provider breaks one clause; the clause's check must say so,
// naming what is wrong.
func TestBreakingAClauseIsCaught(t *testing.T) {
	tests := []struct {
		name   string
		clause string
		p      func() provider.Provider // a fresh one for each run
		want   string                   // in one of the problems
	}{
		{"an empty ID", "identity", func() provider.Provider { return &emptyID{good: newGood()} }, "ID is empty"},
		{"an ID that changes", "identity", func() provider.Provider { return &changingID{good: newGood()} }, "ID changed"},
		{"a priority that changes", "identity", func() provider.Provider { return &changingPriority{good: newGood()} }, "Priority changed"},
		{"an ID that panics", "identity", func() provider.Provider { return &panickingID{good: newGood()} }, "ID panicked"},
		{"unavailable", "listing", func() provider.Provider { return &unavailable{good: newGood()} }, "Tools failed: no server"},
		{"Tools panics", "listing", func() provider.Provider { return &panickingTools{good: newGood()} }, "Tools panicked"},
		{"a bad name", "valid-tools", func() provider.Provider { return plain{tools: []*tool.Tool{stub("bad name!")}} }, `tool "bad name!": name must match`},
		{"no Execute", "valid-tools", func() provider.Provider { return plain{tools: []*tool.Tool{noExecute()}} }, "no Execute function"},
		{"a nil tool", "valid-tools", func() provider.Provider { return plain{tools: []*tool.Tool{nil}} }, "nil tool"},
		{"a name twice", "unique-names", func() provider.Provider { return plain{tools: []*tool.Tool{stub("a"), stub("b"), stub("a")}} }, `two tools named "a"`},
		{"a schema that does not compile", "schemas", func() provider.Provider { return plain{tools: []*tool.Tool{danglingRef()}} }, `tool "dangling": input schema:`},
		{"a schema that is not an object's", "schemas", func() provider.Provider { return plain{tools: []*tool.Tool{stringly()}} }, `input schema has type "string"`},
		{"an output schema that does not compile", "schemas", func() provider.Provider { return plain{tools: []*tool.Tool{badOutput()}} }, `tool "out": output schema:`},
		{"a Go input type with no schema", "schemas", func() provider.Provider { return plain{tools: []*tool.Tool{channelInput()}} }, `tool "chan": Schemas panicked`},
		{"a listing that changes unannounced", "stable-listing", func() provider.Provider { return &unstable{good: newGood("fake_a")} }, "with no invalidation between them"},
		{"a scope that denies a listed name", "scoped", func() provider.Provider { return &narrowScope{good: newGood("fake_a", "other")} }, `MayOffer("other") is false`},
		{"a cancelled listing remembered as the state", "cancelled-listing", func() provider.Provider { return &stickyCancel{good: newGood("fake_a")} }, "after a cancelled listing: Tools failed: context canceled"},
		{"Close twice panics", "close", func() provider.Provider { return &closeOnce{good: newGood(), done: make(chan struct{})} }, "a second Close panicked"},
		{"Close twice fails", "close", func() provider.Provider { return &closeErrs{good: newGood()} }, "a second Close failed: already closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := clause(t, tt.clause).check(t.Context(), newSubject(tt.p()))
			if !containsAny(problems, tt.want) {
				t.Errorf("clause %s found %q; want a problem containing %q", tt.clause, problems, tt.want)
			}
			err := TestProvider(t.Context(), tt.p())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("TestProvider = %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestConcurrentListingsAreCaught: the provider is run through its clause
// alone, not TestProvider, whose other clauses list it one caller at a time
// (its first listing waits for a second).
func TestConcurrentListingsAreCaught(t *testing.T) {
	problems := clause(t, "concurrent-listing").check(t.Context(), newSubject(newOneAtATime()))
	if !containsAny(problems, "at once: Tools failed: busy") {
		t.Errorf("found %q; want a listing refused as busy", problems)
	}
}

// TestHungCallsAreCaught: a call that does not return is reported once the
// guard (shortened here: these providers never return) runs out, for a
// listing that ignores its cancelled context and for Tools after Close.
func TestHungCallsAreCaught(t *testing.T) {
	defer func(d time.Duration) { hangGuard = d }(hangGuard)
	hangGuard = 10 * time.Millisecond
	release := make(chan struct{})
	defer close(release)
	tests := []struct {
		clause string
		p      provider.Provider
		want   string
	}{
		{"cancelled-listing", &ignoresCancel{good: newGood("fake_a"), release: release}, "Tools with a cancelled context has not returned after 10ms"},
		{"close", &hangsAfterClose{good: newGood(), release: release}, "Tools after Close has not returned after 10ms"},
	}
	for _, tt := range tests {
		problems := clause(t, tt.clause).check(t.Context(), newSubject(tt.p))
		if !containsAny(problems, tt.want) {
			t.Errorf("%s: found %q; want a problem containing %q", tt.clause, problems, tt.want)
		}
	}
}

// TestProblemsNameTheirClause: TestProvider's error names the clause and
// says why it matters, and reports every clause broken, not the first.
func TestProblemsNameTheirClause(t *testing.T) {
	err := TestProvider(t.Context(), plain{tools: []*tool.Tool{stub("bad name!"), stub("a"), stub("a")}})
	for _, want := range []string{
		`valid-tools: tool "bad name!": name must match`,
		"which the registry applies to each listing",
		`unique-names: two tools named "a": the names of one listing must be unique`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("TestProvider = %v; want it to contain %q", err, want)
		}
	}
	if err := TestProvider(t.Context(), &unavailable{good: newGood()}); err == nil || !strings.HasPrefix(err.Error(), "listing: Tools failed: no server: ") {
		t.Errorf("TestProvider of an unavailable provider = %v; want the listing clause alone", err)
	}
}

func clause(t *testing.T, name string) testCase {
	t.Helper()
	for _, c := range cases {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no clause %q", name)
	return testCase{}
}

func containsAny(problems []string, want string) bool {
	for _, p := range problems {
		if strings.Contains(p, want) {
			return true
		}
	}
	return false
}

func noExecute() *tool.Tool {
	t := stub("noexec")
	t.Execute = nil
	return t
}

func danglingRef() *tool.Tool {
	t := stub("dangling")
	t.InputSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"p": {Ref: "#/$defs/missing"}}}
	return t
}

func stringly() *tool.Tool {
	t := stub("stringly")
	t.InputSchema = &jsonschema.Schema{Type: "string"}
	return t
}

func badOutput() *tool.Tool {
	t := stub("out")
	t.OutputSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"p": {Ref: "#/$defs/missing"}}}
	return t
}

// channelInput is a Func tool whose input passes Check (a struct) but
// cannot be described: its schema panics when first inferred.
func channelInput() *tool.Tool {
	return tool.Func("chan", "Takes a channel.", func(context.Context, tool.Context, struct{ C chan int }) (int, error) {
		return 0, nil
	})
}

type emptyID struct{ *good }

func (*emptyID) ID() string { return "" }

type changingID struct {
	*good
	n atomic.Int32
}

func (c *changingID) ID() string { return "fake" + string(rune('0'+c.n.Add(1))) }

type changingPriority struct {
	*good
	n atomic.Int32
}

func (c *changingPriority) Priority() int { return int(c.n.Add(1)) }

type panickingID struct{ *good }

func (*panickingID) ID() string { panic("no id") }

type unavailable struct{ *good }

func (*unavailable) Tools(context.Context) ([]*tool.Tool, error) { return nil, errors.New("no server") }

type panickingTools struct{ *good }

func (*panickingTools) Tools(context.Context) ([]*tool.Tool, error) { panic("listing") }

// unstable lists another tool every other time, and never says so.
type unstable struct {
	*good
	n atomic.Int32
}

func (u *unstable) Tools(ctx context.Context) ([]*tool.Tool, error) {
	tools, err := u.good.Tools(ctx)
	if u.n.Add(1)%2 == 0 {
		tools = append(tools, stub("fake_extra"))
	}
	return tools, err
}

// invalidating is unstable, but says so before each change: the registry
// lists it again, and the stable-listing clause holds.
type invalidating struct {
	*good
	mu         sync.Mutex
	n          int
	invalidate func()
}

func (i *invalidating) SetInvalidate(f func()) { i.invalidate = f }
func (i *invalidating) Tools(ctx context.Context) ([]*tool.Tool, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.n++
	i.invalidate()
	tools, err := i.good.Tools(ctx)
	if i.n%2 == 0 {
		tools = append(tools, stub("fake_extra"))
	}
	return tools, err
}

// oneAtATime refuses a listing while another is running. Its first
// listing waits for a second to arrive, so that two overlap however the
// goroutines are scheduled (a lone first listing would wait for ever);
// later listings wait for nobody.
type oneAtATime struct {
	*good
	mu      sync.Mutex
	busy    bool
	arrived chan struct{}
	once    sync.Once
}

func newOneAtATime() *oneAtATime {
	return &oneAtATime{good: newGood("fake_a"), arrived: make(chan struct{})}
}

func (o *oneAtATime) Tools(ctx context.Context) ([]*tool.Tool, error) {
	o.mu.Lock()
	if o.busy {
		o.mu.Unlock()
		o.once.Do(func() { close(o.arrived) })
		return nil, errors.New("busy")
	}
	o.busy = true
	o.mu.Unlock()
	if o.seenOverlap() {
		defer o.done()
		return o.good.Tools(ctx)
	}
	<-o.arrived
	o.done()
	return o.good.Tools(ctx)
}

func (o *oneAtATime) seenOverlap() bool {
	select {
	case <-o.arrived:
		return true
	default:
		return false
	}
}

func (o *oneAtATime) done() {
	o.mu.Lock()
	o.busy = false
	o.mu.Unlock()
}

type narrowScope struct{ *good }

func (*narrowScope) MayOffer(name string) bool { return name != "other" }

// stickyCancel keeps a cancelled listing's error as its state, as a
// provider that caches its last failure would.
type stickyCancel struct {
	*good
	mu      sync.Mutex
	lastErr error
}

func (s *stickyCancel) Tools(ctx context.Context) ([]*tool.Tool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastErr == nil {
		s.lastErr = ctx.Err()
	}
	if s.lastErr != nil {
		return nil, s.lastErr
	}
	return s.good.Tools(ctx)
}

// ignoresCancel lists only when released, whatever its context says,
// except for a context that is never cancelled.
type ignoresCancel struct {
	*good
	release chan struct{}
}

func (i *ignoresCancel) Tools(ctx context.Context) ([]*tool.Tool, error) {
	if ctx.Err() != nil {
		<-i.release
	}
	return i.good.Tools(ctx)
}

type closeOnce struct {
	*good
	done chan struct{}
}

func (c *closeOnce) Close() error { close(c.done); return nil }

type closeErrs struct {
	*good
	n atomic.Int32
}

func (c *closeErrs) Close() error {
	if c.n.Add(1) > 1 {
		return errors.New("already closed")
	}
	return nil
}

// hangsAfterClose never answers a listing once closed.
type hangsAfterClose struct {
	*good
	release chan struct{}
	closed  atomic.Bool
}

func (h *hangsAfterClose) Close() error { h.closed.Store(true); return nil }
func (h *hangsAfterClose) Tools(ctx context.Context) ([]*tool.Tool, error) {
	if h.closed.Load() {
		<-h.release
	}
	return h.good.Tools(ctx)
}
