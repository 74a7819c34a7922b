package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/schema"
)

// Option configures a tool built by [Func].
type Option func(*funcConfig)

type funcConfig struct {
	risk        Risk
	annotations Annotations
	adjust      []func(*jsonschema.Schema)
	subjects    func(json.RawMessage) ([]Subject, error)
	reaches     func(context.Context, Context, json.RawMessage) ([]Subject, error)
	callRisk    func(context.Context, Context, json.RawMessage) Rating
	// the policy properties of [Tool] of the same names
	readOnlyWhenLowRisk bool
	writesSubjectPaths  bool
	inProcess           bool
	view                View
}

// WithRisk sets the tool's risk (default [RiskLow] for read-only tools, else
// [RiskHigh]).
func WithRisk(r Risk) Option { return func(c *funcConfig) { c.risk = r } }

// WithAnnotations sets the MCP hints. A tool without annotations is treated as
// one that writes.
func WithAnnotations(a Annotations) Option { return func(c *funcConfig) { c.annotations = a } }

// ReadOnly is shorthand for the annotations of a tool that only reads inside
// the workspace: read-only, idempotent, not open-world.
func ReadOnly() Option {
	return WithAnnotations(Annotations{ReadOnly: true, Idempotent: true})
}

// WithSchema lets the tool adjust its inferred input schema (add an enum, a
// pattern, a oneOf) before it is compiled.
func WithSchema(adjust func(*jsonschema.Schema)) Option {
	return func(c *funcConfig) { c.adjust = append(c.adjust, adjust) }
}

// WithSubjects names what a call acts on, for call-level policy rules such as
// read_file(.env). fn gets the decoded input.
func WithSubjects[In any](fn func(In) []Subject) Option {
	return func(c *funcConfig) {
		c.subjects = func(raw json.RawMessage) ([]Subject, error) {
			in, err := decode[In](raw)
			if err != nil {
				return nil, err
			}
			return fn(in), nil
		}
	}
}

// WithReaches names the URLs a call sends data to that its input does not
// spell ([Tool].Reaches): web_search's engine. fn gets the decoded input.
func WithReaches[In any](fn func(ctx context.Context, tc Context, in In) ([]Subject, error)) Option {
	return func(c *funcConfig) {
		c.reaches = func(ctx context.Context, tc Context, raw json.RawMessage) ([]Subject, error) {
			in, err := decode[In](raw)
			if err != nil {
				return nil, err
			}
			return fn(ctx, tc, in)
		}
	}
}

// PathSubject is a [WithSubjects] function for tools whose input names one
// path through a field.
func PathSubject(path string) []Subject { return []Subject{{Kind: SubjectPath, Value: path}} }

// WithCallRisk classifies each call from its decoded input ([Tool].CallRisk);
// fn may read the toolkit's configuration through tc (exec_command reads
// the [CommandClassifierKey] its command gate checks commands with).
func WithCallRisk[In any](fn func(ctx context.Context, tc Context, in In) Rating) Option {
	return func(c *funcConfig) {
		c.callRisk = func(ctx context.Context, tc Context, raw json.RawMessage) Rating {
			in, err := decode[In](raw)
			if err != nil {
				return Rating{Risk: RiskHigh}
			}
			return fn(ctx, tc, in)
		}
	}
}

// ReadOnlyWhenLowRisk marks a tool whose calls rated low by [WithCallRisk]
// change no file ([Tool].ReadOnlyWhenLowRisk): they may run under the
// read-only write scope.
func ReadOnlyWhenLowRisk() Option { return func(c *funcConfig) { c.readOnlyWhenLowRisk = true } }

// WritesSubjectPaths marks a tool that writes the files its path subjects
// name ([Tool].WritesSubjectPaths): its path deny rules also bind the files
// a command opens for writing.
func WritesSubjectPaths() Option { return func(c *funcConfig) { c.writesSubjectPaths = true } }

// InProcess marks a tool whose calls start no process ([Tool].InProcess).
func InProcess() Option { return func(c *funcConfig) { c.inProcess = true } }

// Func builds a tool from a typed Go function. For every call it:
//
//   - has had the arguments validated against the schema inferred from In
//     (struct tags `json`, `jsonschema` for descriptions, and the constraint
//     tags listed in package schema), with additionalProperties false — the
//     pipeline does that before Execute runs;
//   - decodes them into In, rejecting unknown fields;
//   - calls fn with the call's context and [Context];
//   - returns Out as the result's typed Output (for [quiver.Call] and MCP
//     structured content), and as the model's view: Out's own Render method if
//     it implements [Renderer], JSON otherwise.
//
// An error from fn that is a *Error keeps its code; any other error becomes
// EXECUTION_FAILED.
//
// The tool's schemas are inferred from In and Out the first time they are
// asked for ([Tool.Schemas]), once, not here: a program builds every tool it
// offers at start-up and most runs use a few of them, while inference is
// most of what building a tool costs. The [WithSchema] adjustments apply to
// the inferred input schema then. Func still panics at once on the
// programming errors it can find cheaply, at start-up: what [Tool.Check]
// reports (an invalid name, contradictory policy options) and an In that is
// not a struct, whose schema would not be an object schema. An In that
// cannot be described (a field of channel type, a map with int keys), or a
// WithSchema adjustment that makes the input schema other than an object
// schema, makes the tool panic when its schemas are first used; an Out that
// is not a struct, or cannot be described, gives no output schema.
func Func[In, Out any](name, description string, fn func(ctx context.Context, tc Context, in In) (Out, error), opts ...Option) *Tool {
	var cfg funcConfig
	for _, o := range opts {
		o(&cfg)
	}
	adjust := cfg.adjust
	inferIn := func() *jsonschema.Schema {
		in, err := schema.Infer[In]()
		if err != nil {
			panic(fmt.Sprintf("tool.Func(%q): %v", name, err))
		}
		for _, a := range adjust {
			a(in)
		}
		if in.Type != "object" {
			panic(fmt.Sprintf("tool.Func(%q): input schema must have type \"object\", has %q", name, in.Type))
		}
		return in
	}
	if cfg.risk == "" {
		cfg.risk = RiskHigh
		if cfg.annotations.ReadOnly {
			cfg.risk = RiskLow
		}
	}
	t := &Tool{
		Name:        name,
		Description: description,
		inferred: &inferredSchemas{in: sync.OnceValue(inferIn), out: sync.OnceValue(schema.InferOutput[Out]),
			inType: reflect.TypeFor[In]()},
		Risk:        cfg.risk,
		Annotations: cfg.annotations,
		Subjects:    cfg.subjects,
		Reaches:     cfg.reaches,
		CallRisk:    cfg.callRisk,

		ReadOnlyWhenLowRisk: cfg.readOnlyWhenLowRisk,
		WritesSubjectPaths:  cfg.writesSubjectPaths,
		InProcess:           cfg.inProcess,
		View:                cfg.view,
		Execute: func(ctx context.Context, tc Context, raw json.RawMessage) (Result, error) {
			in, err := decodeCall[In](tc, raw)
			if err != nil {
				return Result{}, err
			}
			out, err := fn(ctx, tc, in)
			if err != nil {
				return Result{}, err
			}
			return render(out), nil
		},
	}
	if err := t.Check(); err != nil {
		panic(fmt.Sprintf("tool.Func: %v", err))
	}
	return t
}

// decodeCall fills an In from the pipeline's parse of the arguments when
// there is one and In is directly decodable, else from raw.
func decodeCall[In any](tc Context, raw json.RawMessage) (In, error) {
	var in In
	if tc.parsed != nil {
		ok, err := decodeParsed(tc.parsed, &in)
		if err != nil {
			return in, &Error{Code: CodeInvalidArguments, Retriable: true, Message: decodeMessage(err), Err: err}
		}
		if ok {
			return in, nil
		}
	}
	return decode[In](raw)
}

// decode unmarshals raw into an In. Unknown fields are rejected before this,
// by the schema (additionalProperties false), which the pipeline checks on
// every call; decoding does not check them twice.
func decode[In any](raw json.RawMessage) (In, error) {
	var in In
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, &Error{Code: CodeInvalidArguments, Retriable: true, Message: decodeMessage(err), Err: err}
	}
	return in, nil
}

func decodeMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %q: has JSON type %s, want %s", te.Field, te.Value, te.Type)
	}
	return err.Error()
}

func render(out any) Result {
	if r, ok := out.(Renderer); ok {
		res := r.Render()
		res.Output = out
		return res
	}
	if v := reflect.ValueOf(out); !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return Result{Parts: []Part{{Type: PartText, Text: "(no output)"}}, Output: out}
	}
	res := JSON(out)
	res.Output = out
	return res
}
