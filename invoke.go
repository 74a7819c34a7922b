package quiver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/netproxy"
	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/tool"
)

// Output is the result of one call.
type Output struct {
	Name   string `json:"name"` // the name that was called
	CallID string `json:"call_id"`
	// Content is the model's view; an error result when Err is set. When
	// the output cache trimmed it, Content.OutputRef is the whole output's
	// reference.
	Content  tool.Result `json:"content"`
	Provider string      `json:"provider,omitempty"` // who served the call
	Err      *tool.Error `json:"-"`                  // the failure, if any
}

// Invoke runs the tool called name with args through the whole pipeline.
// args is a map[string]any, a json.RawMessage, []byte or string holding
// JSON text (`{"path": "a.go"}`, as a model sends it), or any value that
// marshals to a JSON object; anything else is INVALID_TOOL_ARGUMENTS_TYPE.
// A string is taken as JSON text: marshalled, it would be a JSON string,
// which is never a call's arguments.
//
// On failure the returned error is the *tool.Error, and Output.Content holds
// the error result to hand back to the model.
func (tk *Toolkit) Invoke(ctx context.Context, name string, args any) (Output, error) {
	raw, err := rawArgs(args)
	if err != nil {
		// The cause is kept: "got null" would hide why the arguments were lost.
		te := tool.Errorf(tool.CodeInvalidToolArgumentsType, "arguments do not marshal to JSON: %w", err).WithTool(name)
		return Output{Name: name, Content: tool.ErrorResult(name, te), Err: te}, te
	}
	out, err := tk.InvokeCall(ctx, driver.ToolCall{Name: name, Arguments: raw})
	if _, isString := args.(string); isString && out.Err != nil && out.Err.Code == tool.CodeInvalidToolArgumentsType {
		// The pipeline judged the text; the Go caller is told what else to pass.
		out.Err.Message += "; a Go string given to Invoke is taken as the arguments' JSON text, such as {\"path\": \"a.go\"}: " +
			"give that, or a map[string]any or a struct to have it marshalled"
		out.Content = tool.ErrorResult(name, out.Err)
	}
	return out, err
}

// InvokeCall is [Toolkit.Invoke] for one call a model asked for: its id
// (one is made when empty) keys the audit record and the output cache's
// reference, and its Arguments must be a JSON object. The call's Metadata is
// the driver's business and is not looked at.
func (tk *Toolkit) InvokeCall(ctx context.Context, c driver.ToolCall) (Output, error) {
	out := tk.run(ctx, c)
	if out.Err != nil {
		return out, out.Err
	}
	return out, nil
}

func rawArgs(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case json.RawMessage:
		return a, nil
	case []byte:
		return a, nil
	case string:
		return json.RawMessage(a), nil
	case nil:
		return json.RawMessage("null"), nil
	}
	return json.Marshal(args)
}

// call is the state of one call as it moves down the pipeline.
type call struct {
	driver.ToolCall
	entry    *provider.Entry
	tool     *tool.Tool
	args     json.RawMessage
	parsed   map[string]any // the validated arguments, decoded
	subjects []tool.Subject
	risk     tool.Risk
	verdict  policy.Verdict
	approval policy.Approval
	typed    bool // the caller wants the typed output, untrimmed
	tk       *Toolkit
	gate     tool.CommandGate // made on first use: few tools run commands
	gateOnce sync.Once
	scope    tool.Scope          // the call's dependencies, kept inline
	ran      commandLog          // the programs the call started, for its audit record
	hosts    netproxy.Tally      // the hosts its processes asked the proxy for, for its audit record
	box      *sandbox.Profile    // the profile its processes ran under, once it executes
	span     *telemetry.ToolCall // its span; nil when the toolkit records none

	// What the hooks said (hooks.go).
	hooksRan     []hooks.Ran
	hookNotes    []string // for the model, with the result
	hookDecision hooks.Decision
	hookBy       string
	hookReason   string
	executed     bool        // the tool was started: the hooks after it run
	blocked      *tool.Error // a PostToolUse hook made the result an error
}

// CheckCommand makes the call its own tool.CommandGate, so that providing
// the gate costs nothing for the many tools that never run a command.
func (c *call) CheckCommand(ctx context.Context, argv []string) error {
	return c.commandGate().CheckCommand(ctx, argv)
}

// CheckWrite implements tool.CommandGate.
func (c *call) CheckWrite(ctx context.Context, path string) error {
	return c.commandGate().CheckWrite(ctx, path)
}

func (c *call) commandGate() tool.CommandGate {
	c.gateOnce.Do(func() {
		c.gate = c.tk.policy.CommandGate(c.tk.ws, c.tool.Name, c.verdict, c.approval.Approved, c.tk.classifier(), c.tk.registry.AllTools)
	})
	return c.gate
}

// run is the pipeline of docs/design.md section 1, top to bottom.
func (tk *Toolkit) run(ctx context.Context, tc driver.ToolCall) Output {
	return tk.runWith(ctx, tc, false)
}

func (tk *Toolkit) runWith(ctx context.Context, tc driver.ToolCall, typed bool) (out Output) {
	start := time.Now()
	c := &call{ToolCall: tc, typed: typed, tk: tk}
	if c.ID == "" {
		c.ID = "call_" + strconv.FormatUint(tk.calls.Add(1), 10)
	}
	out = Output{Name: c.Name, CallID: c.ID}
	ctx = tk.startSpan(ctx, c)
	defer func() { tk.record(ctx, c, &out, start); tk.endSpan(ctx, c, &out) }()

	res, err := tk.pipeline(ctx, c)
	res, err = tk.postHooks(ctx, c, res, err)
	if err != nil {
		te := tool.AsError(err).WithTool(c.Name)
		out.Err, out.Content = te, withNotes(tool.ErrorResult(c.Name, te), c.hookNotes)
		return out
	}
	out.Content = withNotes(res, c.hookNotes)
	if c.blocked != nil {
		out.Err = c.blocked.WithTool(c.Name)
	}
	if c.entry != nil {
		out.Provider = c.entry.Provider
	}
	return out
}

func (tk *Toolkit) pipeline(ctx context.Context, c *call) (tool.Result, error) {
	if err := tk.resolve(ctx, c); err != nil {
		return tool.Result{}, err
	}
	if err := tk.policy.Gate(c.tool); err != nil {
		return tool.Result{}, err
	}
	if c.entry != nil {
		if err := tk.backendGate(*c.entry); err != nil {
			return tool.Result{}, err
		}
	}
	m, err := checkObject(c.args)
	if err != nil {
		return tool.Result{}, err
	}
	if err := tk.validate(c, m); err != nil {
		return tool.Result{}, err
	}
	c.parsed = m
	if err := tk.preHooks(ctx, c); err != nil {
		return tool.Result{}, err
	}
	if err := tk.decide(ctx, c); err != nil {
		return tool.Result{}, err
	}
	c.hookTightens()
	if err := tk.approve(ctx, c); err != nil {
		return tool.Result{}, err
	}
	res, err := tk.execute(ctx, c)
	if err != nil {
		return tool.Result{}, err
	}
	if !c.typed {
		res = tk.cacheStep(ctx, c.tool.Name, c.ID, c.subjects, res)
	}
	return res, nil
}

// resolve finds the tool (following aliases) and the provider serving it.
func (tk *Toolkit) resolve(ctx context.Context, c *call) error {
	var err error
	if c.entry, c.args, err = tk.lookup(ctx, c.Name, c.Arguments); err != nil {
		return err
	}
	c.tool = c.entry.Tool
	return nil
}

// lookup is the registry's answer for name, from the one provider
// [WithOnlyProvider] named if it named one.
func (tk *Toolkit) lookup(ctx context.Context, name string, args json.RawMessage) (*provider.Entry, json.RawMessage, error) {
	if tk.onlyProvider != "" {
		return tk.registry.ResolveFrom(ctx, tk.onlyProvider, name, args)
	}
	return tk.registry.Resolve(ctx, name, args)
}

// checkObject decodes args, which must be a JSON object.
func checkObject(args json.RawMessage) (map[string]any, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, tool.Errorf(tool.CodeInvalidToolArgumentsType,
			"arguments must be a JSON object, got %s", describeJSON(trimmed))
	}
	m, err := schema.ParseObject(trimmed)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidToolArgumentsType, "arguments are not valid JSON: %w", err)
	}
	return m, nil
}

func describeJSON(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "text that is not JSON"
	}
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "a " + fmt.Sprintf("%T", v)
}

// validate checks the arguments against the tool's schema; explicit nulls for
// optional fields are dropped (and the raw arguments re-encoded) first.
func (tk *Toolkit) validate(c *call, m map[string]any) error {
	v, err := tk.validator(c.tool)
	if err != nil {
		return tool.Errorf(tool.CodeInternal, "tool %q has an unusable input schema: %w", c.tool.Name, err)
	}
	changed, err := v.Validate(m)
	if err != nil {
		var fe *schema.FieldError
		te := tool.Errorf(tool.CodeInvalidArguments, "%w", err)
		if errors.As(err, &fe) {
			te.WithDetail("field", fe.Field).WithDetail("rule", fe.Rule)
		}
		return te
	}
	if changed {
		if c.args, err = json.Marshal(m); err != nil {
			return tool.Errorf(tool.CodeInternal, "re-encode arguments: %w", err)
		}
	}
	return nil
}

func (tk *Toolkit) validator(t *tool.Tool) (*schema.Validator, error) {
	if v, ok := tk.validators.Load(t); ok {
		return v.(*schema.Validator), nil
	}
	in, err := inputSchema(t)
	if err != nil {
		return nil, err
	}
	v, err := schema.Compile(in)
	if err != nil {
		return nil, err
	}
	tk.validators.Store(t, v)
	return v, nil
}

// inputSchema is t's input schema. A Func tool infers it on first use and
// panics there if its Go type cannot be described (see tool.Func); the call
// fails with INTERNAL instead, so that one badly typed tool cannot take down
// a server that calls it.
func inputSchema(t *tool.Tool) (in *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	in = t.InSchema()
	if in == nil {
		return nil, errors.New("no input schema")
	}
	return in, nil
}

// decide applies the call-level rules to what the call acts on, each path
// as written and as it resolves inside the workspace the tools read: a
// backend's, when one serves their files, not the directory on disk, whose
// file of the same name may be another (a symbolic link in the working
// tree where the ref holds a file).
func (tk *Toolkit) decide(ctx context.Context, c *call) error {
	if c.tool.Subjects != nil {
		subjects, err := c.tool.Subjects(c.args)
		if err != nil {
			return err
		}
		if c.subjects, err = policy.ResolveSubjects(tk.toolWS, subjects); err != nil {
			return err
		}
	}
	// Where the call sends its data, when its arguments do not say
	// (web_search's engine), and how risky it is (exec_command's
	// classifier) are known from the toolkit's configuration.
	shared := tool.NewContext(c.ID, c.tool.Name, tk.logger, tk.shared)
	if c.tool.Reaches != nil {
		reached, err := c.tool.Reaches(ctx, shared, c.args)
		if err != nil {
			return err
		}
		c.subjects = append(c.subjects, reached...)
	}
	rating := c.tool.RiskOf(ctx, shared, c.args)
	c.risk = rating.Risk
	c.verdict = tk.policy.DecideRated(c.tool, c.subjects, rating)
	if c.verdict.Decision == policy.Deny {
		return tool.Errorf(tool.CodeToolNotAllowed, "call refused by policy (%s)", c.verdict.Rule).
			WithDetail("rule", c.verdict.Rule)
	}
	return nil
}

// suggest is what an approval request says about the allow list: the
// rules that would pass the call, or why none can.
func (c *call) suggest() ([]string, string) {
	return c.tk.policy.Suggest(c.tool, c.subjects, c.risk)
}

// approve asks the approver about calls the policy referred to a person. An
// approver's error refuses the call: no decision is not a yes.
func (tk *Toolkit) approve(ctx context.Context, c *call) error {
	if c.verdict.Decision != policy.Ask || tk.hookApproves(c) {
		return nil
	}
	req := policy.Request{Tool: c.tool.Name, CallID: c.ID, Arguments: c.args, Risk: c.risk,
		Rule: c.verdict.Rule, Subjects: c.subjects, View: c.tool.View}
	req.Suggest, req.NoSuggest = c.suggest()
	a, err := tk.approver.Approve(ctx, req)
	c.approval = a
	if err != nil {
		return tool.Errorf(tool.CodeApprovalDenied, "approval failed: %w", err)
	}
	if !a.Approved {
		reason := a.Reason
		if reason == "" {
			reason = "refused"
		}
		return tool.Errorf(tool.CodeApprovalDenied, "%s", reason).WithDetail("approver", a.By)
	}
	return nil
}

// execute runs the tool with its context, a deadline if one is set, and a
// recover that turns a panic into INTERNAL (the stack goes to the log).
func (tk *Toolkit) execute(ctx context.Context, c *call) (res tool.Result, err error) {
	if tk.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, tk.timeout)
		defer cancel()
	}
	c.executed = true
	scope := &c.scope
	scope.Init(tk.overrides, tk.shared)
	scope.Provide(tool.CommandGateKey.ID, tool.CommandGate(c))
	c.box = tk.recordingHosts(c, tk.sandboxFor(c))
	scope.Provide(sandbox.Key.ID, c.box)
	if c.tool.Annotations.OpenWorld { // only tools that reach out follow URLs
		scope.Provide(tool.URLGateKey.ID, tk.policy.URLGate(c.tool, c.risk, c.verdict, c.approval.Approved))
	}
	tc := tool.NewContext(c.ID, c.tool.Name, tk.logger, scope).WithParsedArgs(c.parsed)
	defer func() {
		if p := recover(); p != nil {
			tk.logger.ErrorContext(ctx, "tool panicked", "tool", c.tool.Name, "call_id", c.ID,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, err = tool.Result{}, tool.Errorf(tool.CodeInternal, "the tool panicked: %v", p)
		}
		if cerr := scope.Close(); cerr != nil {
			tk.logger.WarnContext(ctx, "closing call dependencies", "tool", c.tool.Name, "err", cerr)
		}
	}()
	res, err = c.tool.Execute(ctx, tc, c.args)
	if err != nil {
		return res, contextError(ctx, err)
	}
	return res, nil
}

// contextError gives a failure caused by the context its own code.
func contextError(ctx context.Context, err error) error {
	if code := tool.CodeOf(err); code != "" && code != tool.CodeExecutionFailed {
		return err
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return tool.Errorf(tool.CodeTimeout, "the call did not finish before its deadline: %w", err)
	case errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled):
		return tool.Errorf(tool.CodeCancelled, "the call was cancelled: %w", err)
	}
	return err
}

// record writes the call's audit record.
func (tk *Toolkit) record(ctx context.Context, c *call, out *Output, start time.Time) {
	r := audit.Record{Time: start.UTC(), CallID: c.ID, Tool: c.Name,
		DurationMS: float64(time.Since(start).Microseconds()) / 1000,
		Decision:   string(c.verdict.Decision), Rule: c.verdict.Rule, Approver: c.approval.By,
		Outcome: "ok", OutputRef: out.Content.OutputRef}
	if c.entry != nil {
		r.Provider = c.entry.Provider
	}
	if out.Err != nil {
		r.Outcome = string(out.Err.Code)
	}
	for _, p := range out.Content.Parts {
		r.OutputSize += len(p.Text) + len(p.JSON) + len(p.Data)
	}
	r.Hooks = auditHooks(c.hooksRan)
	tk.quoteCall(c, &r)
	if err := tk.audit.Record(ctx, r); err != nil {
		tk.logger.WarnContext(ctx, "audit record lost", "call_id", c.ID, "err", err)
	}
}
