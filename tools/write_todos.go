package tools

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

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

// PlanKey is the dependency key of the toolkit's plan. It is Shared, so one
// plan lives across the calls of a toolkit; a host reads it (to show it in a
// UI) with quiver.Dependency(ctx, tk, tools.PlanKey), or provides its own
// *Plan as an override.
var PlanKey = tool.Key[*Plan]{ID: "quiver.plan", Shared: true,
	Create: func(context.Context) (*Plan, error) { return NewPlan(), nil }}

// Plan is the agent's plan as write_todos last set it. Safe for concurrent
// use.
type Plan struct {
	mu       sync.Mutex
	items    []PlanItem
	next     int // the number of the next new step
	watchers []func([]PlanItem)
}

// NewPlan returns an empty plan.
func NewPlan() *Plan { return &Plan{next: 1} }

// Snapshot returns a copy of the plan's items, in order.
func (p *Plan) Snapshot() []PlanItem {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.items)
}

// Current returns the item in progress, if there is one.
func (p *Plan) Current() (PlanItem, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, it := range p.items {
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

// replace sets the plan to items, keeping the id of every item whose
// content was already in the plan (the first unclaimed one, for repeated
// contents) and giving new items the next step numbers.
func (p *Plan) replace(items []TodoInput) []PlanItem {
	p.mu.Lock()
	old := map[string][]string{}
	for _, it := range p.items {
		old[it.Content] = append(old[it.Content], it.ID)
	}
	next := make([]PlanItem, len(items))
	for i, in := range items {
		id := ""
		if ids := old[in.Content]; len(ids) > 0 {
			id, old[in.Content] = ids[0], ids[1:]
		} else {
			id = "step-" + strconv.Itoa(p.next)
			p.next++
		}
		next[i] = PlanItem{ID: id, Content: in.Content, ActiveForm: in.ActiveForm, Status: in.Status}
	}
	p.items = next
	watchers := slices.Clone(p.watchers)
	p.mu.Unlock()
	for _, fn := range watchers {
		fn(slices.Clone(next))
	}
	return slices.Clone(next)
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
	plan, err := tool.Resolve(ctx, tc, PlanKey)
	if err != nil {
		return nil, err
	}
	out := &WriteTodosOutput{Items: plan.replace(in.Items), MaxItems: MaxTodoItems}
	for i := range out.Items {
		if out.Items[i].Status == TodoInProgress {
			out.CurrentItem = &out.Items[i]
		}
	}
	return out, nil
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
