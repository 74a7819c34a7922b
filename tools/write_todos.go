package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
)

//go:embed write_todos.md
var writeTodosDescription string

// MaxTodoItems is the most items a plan holds.
const MaxTodoItems = 15

// The statuses of a plan item.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// TodoInput is one item of write_todos's input.
type TodoInput struct {
	Content    string `json:"content" jsonschema:"the step, in the imperative: Run the tests" minLength:"1"`
	ActiveForm string `json:"activeForm" jsonschema:"the step as it is being done, shown while it is in progress: Running the tests" minLength:"1"`
	Status     string `json:"status" jsonschema:"pending, in_progress (at most one item) or completed" enum:"pending,in_progress,completed"`
}

// WriteTodosInput is write_todos's input.
type WriteTodosInput struct {
	Items []TodoInput `json:"items" jsonschema:"the whole plan, in order, at most 15 steps; it replaces the previous one" maxItems:"15"`
}

// PlanItem is one item of a plan, with its stable id.
type PlanItem struct {
	ID         string `json:"id"` // step-N, kept while the item's content is unchanged
	Content    string `json:"content"`
	ActiveForm string `json:"activeForm"`
	Status     string `json:"status"`
}

// WriteTodosOutput is write_todos's typed output.
type WriteTodosOutput struct {
	Items    []PlanItem `json:"items"`
	MaxItems int        `json:"maxItems"`
	// CurrentItem is the item in progress, if any; "currentItem" is the
	// name the agent tools' contract (todo_manager) gives it.
	CurrentItem *PlanItem `json:"currentItem,omitempty"`
}

// WriteTodos is a typed reference to write_todos, for quiver.Call.
var WriteTodos = tool.RefTo[WriteTodosInput, *WriteTodosOutput]("write_todos")

// PlanKey is the dependency key of the default session's plan (calls made
// without tool.WithSession: a host with a single agent, quiver run). It is
// Shared, so one plan lives across the calls of a toolkit; a host reads it
// (to show it in a UI) with quiver.Dependency(ctx, tk, tools.PlanKey), or
// provides its own *Plan as an override. Every other session's plan is kept
// by [PlansKey]'s store.
var PlanKey = tool.Key[*Plan]{ID: "quiver.plan", Shared: true,
	Create: func(context.Context) (*Plan, error) { return NewPlan(), nil }}

// PlansKey is the dependency key of the store that keeps the plan of each
// named session (each MCP client's), so that one client's write_todos never
// replaces another's plan. It is in memory by default, each plan dropped
// when its session ends; quiver serve keeps them in Redis when the outputs
// are there (package outputcache/redisstore).
var PlansKey = tool.Key[PlanStore]{ID: "quiver.plans", Shared: true,
	Create: func(context.Context) (PlanStore, error) { return NewPlans(), nil }}

// PlanStore keeps the plan of each session. Implementations are safe for
// concurrent use.
type PlanStore interface {
	// Replace sets session's plan to what [NextPlan] makes of it and items,
	// and returns the new plan's items.
	Replace(ctx context.Context, session string, items []TodoInput) ([]PlanItem, error)
}

// PlanState is a plan as a store keeps it: the items, and the number the
// next new step takes.
type PlanState struct {
	Items []PlanItem `json:"items"`
	Next  int        `json:"next"`
}

// NextPlan returns the plan items make of prev, keeping the id of every
// item whose content was already in prev (the first unclaimed one, for
// repeated contents) and giving new items the next step numbers. It is the
// one rule of every PlanStore.
func NextPlan(prev PlanState, items []TodoInput) PlanState {
	old := map[string][]string{}
	for _, it := range prev.Items {
		old[it.Content] = append(old[it.Content], it.ID)
	}
	next := PlanState{Items: make([]PlanItem, len(items)), Next: max(prev.Next, 1)}
	for i, in := range items {
		id := ""
		if ids := old[in.Content]; len(ids) > 0 {
			id, old[in.Content] = ids[0], ids[1:]
		} else {
			id = "step-" + strconv.Itoa(next.Next)
			next.Next++
		}
		next.Items[i] = PlanItem{ID: id, Content: in.Content, ActiveForm: in.ActiveForm, Status: in.Status}
	}
	return next
}

// Plan is the agent's plan as write_todos last set it. Safe for concurrent
// use.
type Plan struct {
	mu       sync.Mutex
	state    PlanState
	watchers []func([]PlanItem)
}

// NewPlan returns an empty plan.
func NewPlan() *Plan { return &Plan{} }

// Snapshot returns a copy of the plan's items, in order.
func (p *Plan) Snapshot() []PlanItem {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.state.Items)
}

// Current returns the item in progress, if there is one.
func (p *Plan) Current() (PlanItem, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, it := range p.state.Items {
		if it.Status == TodoInProgress {
			return it, true
		}
	}
	return PlanItem{}, false
}

// OnChange calls fn with a copy of the items after every change, on the
// goroutine that made it; fn must not call back into the plan's setters.
func (p *Plan) OnChange(fn func([]PlanItem)) {
	p.mu.Lock()
	p.watchers = append(p.watchers, fn)
	p.mu.Unlock()
}

// replace sets the plan to what NextPlan makes of it and items.
func (p *Plan) replace(items []TodoInput) []PlanItem {
	p.mu.Lock()
	p.state = NextPlan(p.state, items)
	next := p.state.Items
	watchers := slices.Clone(p.watchers)
	p.mu.Unlock()
	for _, fn := range watchers {
		fn(slices.Clone(next))
	}
	return slices.Clone(next)
}

// Plans is the in-memory PlanStore: a plan per session, dropped when the
// session ends.
type Plans struct {
	mu    sync.Mutex
	plans map[string]*Plan
}

// NewPlans returns a store with no plans.
func NewPlans() *Plans { return &Plans{plans: map[string]*Plan{}} }

// Replace sets session's plan.
func (ps *Plans) Replace(_ context.Context, session string, items []TodoInput) ([]PlanItem, error) {
	ps.mu.Lock()
	p := ps.plans[session]
	if p == nil {
		p = NewPlan()
		ps.plans[session] = p
	}
	ps.mu.Unlock()
	return p.replace(items), nil
}

// CloseSession drops session's plan.
func (ps *Plans) CloseSession(session string) error {
	ps.mu.Lock()
	delete(ps.plans, session)
	ps.mu.Unlock()
	return nil
}

func newWriteTodos() *tool.Tool {
	return tool.Func("write_todos", writeTodosDescription, writeTodos,
		tool.InProcess(),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}))
}

func writeTodos(ctx context.Context, tc tool.Context, in WriteTodosInput) (*WriteTodosOutput, error) {
	if err := checkTodos(in.Items); err != nil {
		return nil, err
	}
	items, err := replacePlan(ctx, tc, in.Items)
	if err != nil {
		return nil, err
	}
	out := &WriteTodosOutput{Items: items, MaxItems: MaxTodoItems}
	for i := range out.Items {
		if out.Items[i].Status == TodoInProgress {
			out.CurrentItem = &out.Items[i]
		}
	}
	return out, nil
}

// replacePlan sets the plan of the call's session: the default session's
// is PlanKey's, every other one's is kept by PlansKey's store.
func replacePlan(ctx context.Context, tc tool.Context, items []TodoInput) ([]PlanItem, error) {
	session := tool.SessionOf(ctx)
	if session == "" {
		plan, err := tool.Resolve(ctx, tc, PlanKey)
		if err != nil {
			return nil, err
		}
		return plan.replace(items), nil
	}
	store, err := tool.Resolve(ctx, tc, PlansKey)
	if err != nil {
		return nil, err
	}
	got, err := store.Replace(ctx, session, items)
	switch {
	case errors.Is(err, outputcache.ErrUnavailable):
		return nil, tool.Errorf(tool.CodeStoreUnavailable, "keeping the plan: %w; the previous plan stands: try again later", err)
	case err != nil:
		return nil, tool.Errorf(tool.CodeExecutionFailed, "keeping the plan: %w", err)
	}
	return got, nil
}

// checkTodos holds the items to the rules the schema cannot state, naming
// the items at fault; it never fixes a plan silently.
func checkTodos(items []TodoInput) error {
	if len(items) > MaxTodoItems {
		return tool.Errorf(tool.CodeInvalidArguments,
			"items: %d items, at most %d: merge steps or drop finished ones", len(items), MaxTodoItems)
	}
	var active []string
	for i, it := range items {
		switch {
		case strings.TrimSpace(it.Content) == "":
			return tool.Errorf(tool.CodeInvalidArguments, "items[%d].content is empty: say what the step is", i)
		case strings.TrimSpace(it.ActiveForm) == "":
			return tool.Errorf(tool.CodeInvalidArguments,
				"items[%d].activeForm is empty: give the step as it is being done (%q -> \"...ing\")", i, it.Content)
		case it.Status != TodoPending && it.Status != TodoInProgress && it.Status != TodoCompleted:
			return tool.Errorf(tool.CodeInvalidArguments,
				"items[%d].status %q: must be pending, in_progress or completed", i, it.Status)
		case it.Status == TodoInProgress:
			active = append(active, fmt.Sprintf("items[%d] (%q)", i, it.Content))
		}
	}
	if len(active) > 1 {
		return tool.Errorf(tool.CodeInvalidArguments,
			"%s are all in_progress; at most one item may be in_progress: mark the others pending or completed",
			strings.Join(active, ", "))
	}
	return nil
}

// Render shows the plan as a checklist.
func (o *WriteTodosOutput) Render() tool.Result {
	if len(o.Items) == 0 {
		return tool.Text(fmt.Sprintf("The plan is empty (it may hold up to %d items).", o.MaxItems))
	}
	var b strings.Builder
	done := 0
	for _, it := range o.Items {
		mark := map[string]string{TodoPending: "[ ]", TodoInProgress: "[>]", TodoCompleted: "[x]"}[it.Status]
		fmt.Fprintf(&b, "%s %s: %s\n", mark, it.ID, it.Content)
		if it.Status == TodoCompleted {
			done++
		}
	}
	fmt.Fprintf(&b, "(%d of %d done; at most %d items", done, len(o.Items), o.MaxItems)
	if o.CurrentItem != nil {
		fmt.Fprintf(&b, "; now: %s", o.CurrentItem.ActiveForm)
	}
	b.WriteString(")")
	return tool.Text(b.String())
}
