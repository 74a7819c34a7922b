// Package providertest checks an implementation of [provider.Provider]
// against the contract the registry relies on, as testing/slogtest checks
// a slog.Handler. Like net/http/httptest, it is for tests only.
//
// [TestProvider] runs one provider through every clause and returns what
// it breaks, joined; [Run] gives each clause a subtest and a fresh
// provider.
//
// # The contract
//
// The clauses are what [provider.Registry] and the call pipeline take for
// granted without checking again on every call:
//
//   - the ID is not empty and never changes, nor does the priority: the
//     registry keys listings by ID and orders providers once, when added;
//   - Tools answers (the provider is available for the test), and every
//     tool passes [tool.Tool.Check], which the registry applies too,
//     leaving out a tool that fails it;
//   - the names of a listing are unique: the registry keeps the first of
//     two and drops the other without a word;
//   - each tool's input schema compiles, as the pipeline compiles it to
//     validate a call, and describes an object; an output schema compiles;
//   - listing again, with no invalidation in between, gives the same names:
//     the registry keeps a listing until the provider invalidates it (see
//     [provider.Invalidator]);
//   - Tools may be called by several goroutines at once: the registry asks
//     providers outside its lock;
//   - a [provider.Scoped] provider may offer every name it lists: the
//     registry does not list a provider that denies a name, and a
//     lower-priority tool of that name would run in its place;
//   - Tools returns when its context is cancelled, and a cancelled listing
//     leaves the provider available to the next caller;
//   - a provider that is an [io.Closer] may be closed twice (the host and
//     the toolkit may both close it), and Tools returns after Close.
//
// A call into the provider that panics breaks the contract; one that has
// not returned after a minute is reported as hung.
//
// # What is not checked
//
// Tools are not executed: their errors and their handling of a cancelled
// call are the pipeline's to check on every call (an error that is not a
// [tool.Error] becomes EXECUTION_FAILED, a cancelled context CANCELLED),
// and running every tool of a provider with made-up arguments could do
// anything the tool does.
package providertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
)

// hangGuard bounds each call into the provider: one that has not returned
// by then is reported as hung rather than stalling the test run. It is a
// variable for this package's own tests, whose broken providers never
// return.
var hangGuard = time.Minute

// testCase is one clause of the contract.
type testCase struct {
	name string
	// explanation says what the clause is and why the registry needs it;
	// every problem the check finds is reported with it.
	explanation string
	// check returns the clause's problems with the provider, nil when it
	// holds.
	check func(ctx context.Context, s *subject) []string
}

// listingExplanation is the listing clause's, which TestProvider checks
// first: a provider that does not list cannot be checked further.
const listingExplanation = "the provider under test must be available: an error from Tools means it is not, and the registry serves none of its tools"

var cases = []testCase{
	{
		name:        "identity",
		explanation: "a provider's ID is not empty and, like its priority, never changes: the registry keys listings by ID and orders providers once, when they are added",
		check:       checkIdentity,
	},
	{
		name:        "listing",
		explanation: listingExplanation,
		check: func(ctx context.Context, s *subject) []string {
			_, problems := s.list(ctx)
			return problems
		},
	},
	{
		name:        "valid-tools",
		explanation: "every tool must pass (*tool.Tool).Check, which the registry applies to each listing, leaving out a tool that fails it",
		check:       checkValid,
	},
	{
		name:        "unique-names",
		explanation: "the names of one listing must be unique: the registry serves the first tool of a name and drops the others silently",
		check:       checkUnique,
	},
	{
		name:        "schemas",
		explanation: "a tool's input schema must compile (the pipeline compiles it to validate every call) and describe a JSON object; an output schema must compile",
		check:       checkSchemas,
	},
	{
		name:        "stable-listing",
		explanation: "listing again with no invalidation in between must give the same names: the registry keeps a listing until the provider invalidates it (provider.Invalidator)",
		check:       checkStable,
	},
	{
		name:        "concurrent-listing",
		explanation: "Tools must be safe to call from several goroutines at once and give each the same answer: the registry asks providers outside its lock",
		check:       checkConcurrent,
	},
	{
		name:        "scoped",
		explanation: "a provider.Scoped provider must answer MayOffer true for every name it lists: the registry does not list a provider that denies a name, and a lower-priority tool of that name would run in its place",
		check:       checkScoped,
	},
	{
		name:        "cancelled-listing",
		explanation: "Tools must return when its context is cancelled, and a cancelled listing must leave the provider available to the next caller",
		check:       checkCancelled,
	},
	{
		name:        "close",
		explanation: "a provider that is an io.Closer may be closed twice, the second Close returning nil (the host and the toolkit may both close it), and Tools must return after Close",
		check:       checkClose,
	},
}

// TestProvider runs p through every clause of the contract and returns the
// problems found, each with the clause it breaks, joined with
// [errors.Join]; nil means p keeps the contract. p must be available (its
// Tools answers without error) and held by no registry (TestProvider sets
// its invalidation hook, as a registry would); it ends closed if it is an
// [io.Closer].
func TestProvider(ctx context.Context, p provider.Provider) error {
	s := newSubject(p)
	if _, problems := s.list(ctx); problems != nil {
		return fmt.Errorf("listing: %s: %s", problems[0], listingExplanation)
	}
	var errs []error
	for _, c := range cases {
		for _, problem := range c.check(ctx, s) {
			errs = append(errs, fmt.Errorf("%s: %s: %s", c.name, problem, c.explanation))
		}
	}
	return errors.Join(errs...)
}

// Run runs each clause of the contract in a subtest of t, with a provider
// newProvider makes for it, and reports each problem with t.Error. The
// provider must be held by no registry; newProvider arranges its cleanup
// (t.Cleanup), which runs after the close clause has closed it.
func Run(t *testing.T, newProvider func(t *testing.T) provider.Provider) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSubject(newProvider(t))
			_, scoped := s.p.(provider.Scoped)
			_, closer := s.p.(io.Closer)
			switch {
			case c.name == "scoped" && !scoped:
				t.Skip("not a provider.Scoped: nothing to check")
			case c.name == "close" && !closer:
				t.Skip("not an io.Closer: nothing to check")
			}
			for _, problem := range c.check(t.Context(), s) {
				t.Errorf("%s: %s", problem, c.explanation)
			}
		})
	}
}

// subject is the provider under test and the invalidations it has
// signalled since its hook was set.
type subject struct {
	p             provider.Provider
	invalidations atomic.Int64
}

// newSubject sets p's invalidation hook, as a registry does when the
// provider is added, before any listing. A provider that is not a
// [provider.Invalidator] never signals one.
func newSubject(p provider.Provider) *subject {
	s := &subject{p: p}
	if inv, ok := p.(provider.Invalidator); ok {
		inv.SetInvalidate(func() { s.invalidations.Add(1) })
	}
	return s
}

// guarded runs f as a call into the provider: a panic or a call still
// running after hangGuard is the problem it returns, described as what.
// f's own error is not a problem in itself; the caller decides.
func guarded[T any](what string, f func() (T, error)) (v T, problem string, err error) {
	type answer struct {
		v       T
		err     error
		problem string
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- answer{problem: fmt.Sprintf("%s panicked: %v", what, r)}
			}
		}()
		v, err := f()
		done <- answer{v: v, err: err}
	}()
	timer := time.NewTimer(hangGuard)
	defer timer.Stop()
	select {
	case a := <-done:
		return a.v, a.problem, a.err
	case <-timer.C:
		return v, fmt.Sprintf("%s has not returned after %s", what, hangGuard), nil
	}
}

// list asks the provider for its tools; a failure is the one problem it
// returns.
func (s *subject) list(ctx context.Context) ([]*tool.Tool, []string) {
	tools, problem, err := guarded("Tools", func() ([]*tool.Tool, error) { return s.p.Tools(ctx) })
	switch {
	case problem != "":
		return nil, []string{problem}
	case err != nil:
		return nil, []string{fmt.Sprintf("Tools failed: %v", err)}
	}
	return tools, nil
}

// names lists the names of tools, sorted.
func names(tools []*tool.Tool) []string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		if t != nil {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

func checkIdentity(_ context.Context, s *subject) []string {
	id1, problem, _ := guarded("ID", func() (string, error) { return s.p.ID(), nil })
	if problem != "" {
		return []string{problem}
	}
	var problems []string
	if id1 == "" {
		problems = append(problems, "ID is empty")
	}
	if id2 := s.p.ID(); id1 != id2 {
		problems = append(problems, fmt.Sprintf("ID changed from %q to %q", id1, id2))
	}
	pr1, problem, _ := guarded("Priority", func() (int, error) { return s.p.Priority(), nil })
	if problem != "" {
		return append(problems, problem)
	}
	if pr2 := s.p.Priority(); pr1 != pr2 {
		problems = append(problems, fmt.Sprintf("Priority changed from %d to %d", pr1, pr2))
	}
	return problems
}

func checkValid(ctx context.Context, s *subject) []string {
	tools, problems := s.list(ctx)
	for _, t := range tools {
		if err := t.Check(); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return problems
}

func checkUnique(ctx context.Context, s *subject) []string {
	tools, problems := s.list(ctx)
	seen := map[string]int{}
	for _, name := range names(tools) {
		if seen[name]++; seen[name] == 2 {
			problems = append(problems, fmt.Sprintf("two tools named %q", name))
		}
	}
	return problems
}

func checkSchemas(ctx context.Context, s *subject) []string {
	tools, problems := s.list(ctx)
	for _, t := range tools {
		if t == nil {
			continue // valid-tools reports it
		}
		found, problem, _ := guarded(fmt.Sprintf("tool %q: Schemas", t.Name), func() ([]string, error) {
			return schemaProblems(t), nil
		})
		if problem != "" {
			found = []string{problem}
		}
		problems = append(problems, found...)
	}
	return problems
}

// schemaProblems compiles t's schemas as the pipeline does. A Func tool
// infers them here, and panics if its Go types cannot be described.
func schemaProblems(t *tool.Tool) []string {
	in, out := t.Schemas()
	var problems []string
	switch {
	case in == nil:
		return []string{fmt.Sprintf("tool %q: no input schema", t.Name)}
	case in.Type != "object":
		problems = append(problems, fmt.Sprintf("tool %q: input schema has type %q, not \"object\"", t.Name, in.Type))
	}
	if _, err := schema.Compile(in); err != nil {
		problems = append(problems, fmt.Sprintf("tool %q: input schema: %v", t.Name, err))
	}
	if out != nil {
		if _, err := schema.Compile(out); err != nil {
			problems = append(problems, fmt.Sprintf("tool %q: output schema: %v", t.Name, err))
		}
	}
	return problems
}

func checkStable(ctx context.Context, s *subject) []string {
	before := s.invalidations.Load()
	first, problems := s.list(ctx)
	if problems != nil {
		return problems
	}
	second, problems := s.list(ctx)
	if problems != nil {
		return problems
	}
	if s.invalidations.Load() != before {
		return nil // the provider said its catalogue changed: a new listing may differ
	}
	if a, b := names(first), names(second); !slices.Equal(a, b) {
		return []string{fmt.Sprintf("one listing gave %q, the next %q, with no invalidation between them", a, b)}
	}
	return nil
}

// concurrentListings is how many goroutines list the provider at once.
const concurrentListings = 4

func checkConcurrent(ctx context.Context, s *subject) []string {
	before := s.invalidations.Load()
	var (
		start   = make(chan struct{})
		wg      sync.WaitGroup
		answers [concurrentListings][]string
		found   [concurrentListings][]string
	)
	for i := range concurrentListings {
		wg.Go(func() {
			<-start
			tools, problems := s.list(ctx)
			answers[i], found[i] = names(tools), problems
		})
	}
	close(start)
	wg.Wait()
	var problems []string
	for i := range concurrentListings {
		switch {
		case found[i] != nil:
			problems = append(problems, fmt.Sprintf("listing %d of %d at once: %s", i+1, concurrentListings, found[i][0]))
		case found[0] == nil && !slices.Equal(answers[i], answers[0]) && s.invalidations.Load() == before:
			problems = append(problems, fmt.Sprintf("listings at once gave %q and %q", answers[0], answers[i]))
		}
	}
	return problems
}

func checkScoped(ctx context.Context, s *subject) []string {
	scoped, ok := s.p.(provider.Scoped)
	if !ok {
		return nil
	}
	tools, problems := s.list(ctx)
	for _, name := range names(tools) {
		may, problem, _ := guarded("MayOffer", func() (bool, error) { return scoped.MayOffer(name), nil })
		switch {
		case problem != "":
			problems = append(problems, problem)
		case !may:
			problems = append(problems, fmt.Sprintf("MayOffer(%q) is false, but Tools lists it", name))
		}
	}
	return problems
}

func checkCancelled(ctx context.Context, s *subject) []string {
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, problem, _ := guarded("Tools with a cancelled context", func() ([]*tool.Tool, error) { return s.p.Tools(cancelled) }); problem != "" {
		return []string{problem}
	}
	if _, problems := s.list(ctx); problems != nil {
		return []string{"after a cancelled listing: " + problems[0]}
	}
	return nil
}

func checkClose(ctx context.Context, s *subject) []string {
	c, ok := s.p.(io.Closer)
	if !ok {
		return nil
	}
	// Closed once it has listed, as a host closes it: what a listing
	// started (an MCP server) is running.
	if _, problems := s.list(ctx); problems != nil {
		return problems
	}
	if _, problem, _ := guarded("Close", func() (struct{}, error) { return struct{}{}, c.Close() }); problem != "" {
		return []string{problem}
	}
	_, problem, err := guarded("a second Close", func() (struct{}, error) { return struct{}{}, c.Close() })
	switch {
	case problem != "":
		return []string{problem}
	case err != nil:
		return []string{fmt.Sprintf("a second Close failed: %v", err)}
	}
	if _, problem, _ := guarded("Tools after Close", func() ([]*tool.Tool, error) { return s.p.Tools(ctx) }); problem != "" {
		return []string{problem}
	}
	return nil
}
