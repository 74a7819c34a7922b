package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// Risk is how dangerous a call is. High-risk calls are the ones a policy asks a
// person (or reviewer models) about by default.
type Risk string

// The risk levels.
const (
	RiskLow  Risk = "low"
	RiskHigh Risk = "high"
)

// A Rating is one call's risk ([Tool].CallRisk) and, when something other
// than the tool's own judgement vouched for a low one, what did: the audit
// record names it as the rule that let the call run unasked.
type Rating struct {
	Risk Risk
	// By names what vouched for the low rating, as configuration writes
	// it (`low_risk_commands entry "make -s test"`); "" for the tool's own.
	By string
}

// Annotations are the MCP tool hints. They describe the tool to clients and to
// the policy: a tool that is not ReadOnly does not run under the read-only write
// scope.
//
// As JSON (`quiver tools --json`) they are snake_case, as every key Quiver
// chooses; an MCP client sees them under the MCP names (readOnlyHint...),
// which are the protocol's.
type Annotations struct {
	ReadOnly    bool `json:"read_only"`   // the tool does not change its environment
	Destructive bool `json:"destructive"` // the tool may destroy or overwrite data (meaningful when not ReadOnly)
	Idempotent  bool `json:"idempotent"`  // calling it twice with the same arguments has no further effect
	OpenWorld   bool `json:"open_world"`  // the tool reaches outside the workspace (network, other systems)
}

// SubjectKind says what a [Subject] names, so that a policy rule's specifier is
// matched the right way.
type SubjectKind string

// The subject kinds.
const (
	SubjectPath    SubjectKind = "path"    // a file path; matched as a glob over the workspace-relative path
	SubjectCommand SubjectKind = "command" // a shell command line; every simple command in it must pass
	SubjectURL     SubjectKind = "url"     // a URL; matched by "domain:HOST" specifiers
)

// A Subject is something a call acts on: the path a file tool opens, the
// command exec runs, the URL web_fetch reads. Call-level policy rules such as
// edit(src/**) match subjects.
type Subject struct {
	Kind  SubjectKind
	Value string
	// Field is the argument the subject was read from ("path"), when the
	// tool says: a refusal of the subject before the tool runs (a path
	// that leads out of the workspace) names it as the tool's own would
	// ([FieldError]). Rules never match on it.
	Field string
}

// Tool is one callable tool. Most tools are built with [Func]; providers that
// learn their tools at run time (MCP servers, command templates) fill this in
// directly.
//
// The pipeline validates arguments against the input schema before Execute
// sees them, so Execute may rely on the schema holding. Execute must honour
// ctx.
//
// Read the schemas with [Tool.Schemas], not from the fields: a tool built by
// [Func] leaves both fields nil and infers its schemas when first asked.
type Tool struct {
	Name         string
	Description  string
	InputSchema  *jsonschema.Schema // an object schema; nil in a Func tool, see [Tool.Schemas]
	OutputSchema *jsonschema.Schema // optional; nil in a Func tool, see [Tool.Schemas]
	Risk         Risk
	Annotations  Annotations

	// Subjects names what a call acts on, for call-level policy rules. It is
	// given validated arguments. Nil means the tool has no subjects.
	Subjects func(args json.RawMessage) ([]Subject, error)

	// Reaches, when set, names the URLs a call sends data to that its
	// arguments do not spell: web_search sends its query to the search
	// engine the host configured. The pipeline adds them to the call's
	// subjects, so that the policy decides on where the data goes. It is
	// given validated arguments and a Context that resolves the toolkit's
	// shared dependencies and overrides (not the per-call ones).
	Reaches func(ctx context.Context, tc Context, args json.RawMessage) ([]Subject, error)

	// CallRisk, when set, classifies one call; it overrides Risk for that call
	// (exec_command rates `git status` low and `rm` high). It is given
	// validated arguments and, as Reaches is, a Context that resolves the
	// toolkit's shared dependencies and overrides (exec_command reads the
	// toolkit's [CommandClassifierKey] from it). A rating is not a promise
	// that the call leaves files alone: that is ReadOnlyWhenLowRisk.
	CallRisk func(ctx context.Context, tc Context, args json.RawMessage) Rating

	// ReadOnlyWhenLowRisk says that a call CallRisk rates low changes no
	// file, so that it may run under the read-only write scope although the
	// tool is not annotated ReadOnly. The tool must keep that promise as the
	// call runs: exec_command checks every command against the read-only
	// classifier when it runs and starts it in a read-only sandbox. A tool
	// that does not set it runs under the read-only scope only if annotated
	// ReadOnly, whatever its calls are rated.
	ReadOnlyWhenLowRisk bool

	// WritesSubjectPaths says that the tool writes the files its path
	// subjects name (write_file, edit, apply_patch), so that its path rules
	// are rules about writing a file: a deny rule such as write_file(.env)
	// also refuses a command that opens .env for writing (echo x > .env).
	// The path rules of a tool that does not set it bind only its own calls.
	WritesSubjectPaths bool

	// ArgvCommands says that the command subjects of the tool's calls are
	// argument vectors it runs without a shell, written as a shell line
	// (shell.Join) only to be matched: a custom tool's filled-in template.
	// A word that looks like shell syntax is then one argument, never a
	// pipe or a substitution, and the allow rules an approval request
	// suggests name the words with "*" where such a value went
	// (policy.Policy.Suggest). Tools that hand their command to a shell
	// (exec_command) leave it false.
	ArgvCommands bool

	// InProcess says that the tool's calls run inside the host's process and
	// start no other: ending the process ends the call, and nothing of it
	// runs on. A tool that is also annotated ReadOnly, and not OpenWorld,
	// leaves nothing behind when its process is killed mid-call, which is
	// what lets `quiver call` leave Ctrl-C its default action for such a call
	// (see cmd/quiver). The pipeline holds a tool to it: the sandbox profile
	// its calls get refuses every process (sandbox.ErrNoProcess). False, the
	// default, is the safe answer for any tool.
	InProcess bool

	// View is how a call is shown to people: in an approval prompt and on
	// one line of a run's log. The zero View shows it generically.
	View View

	// Execute runs the tool. A returned error that is not a *Error becomes
	// EXECUTION_FAILED.
	Execute func(ctx context.Context, tc Context, args json.RawMessage) (Result, error)

	// inferred, set by [Func], gives the schemas inferred from the tool's Go
	// types, inferring them on first use.
	inferred *inferredSchemas
}

// inferredSchemas are a [Func] tool's schemas, inferred when first asked for.
type inferredSchemas struct {
	in     func() *jsonschema.Schema // a sync.OnceValue: infers once, panics on every call if inference did
	out    func() *jsonschema.Schema // a sync.OnceValue; nil when Out cannot be described
	inType reflect.Type              // the Go type of the input, for Check's cheap test
}

// Schemas returns t's input and output schemas (out may be nil). Every
// reader of a tool's schemas goes through it rather than the InputSchema and
// OutputSchema fields, because a tool built by [Func] does not fill them:
// start-up builds every built-in tool, and inferring all their schemas from
// their Go types was most of what starting `quiver call` allocated, while a
// call needs one tool's input schema. A Func tool infers each of its
// schemas the first time it is asked for, once, and keeps it; asking for
// the input schema panics if the input type cannot be described (see
// [Func]), which the toolkit's pipeline turns into an INTERNAL error for
// the call. A tool filled in directly returns its fields. A field that is
// set wins over inference, so that a copy of a Func tool may replace a
// schema.
//
// Schemas is safe for concurrent use. The schemas are shared by every caller
// and must not be modified.
func (t *Tool) Schemas() (in, out *jsonschema.Schema) {
	in, out = t.InSchema(), t.OutputSchema
	if out == nil && t.inferred != nil {
		out = t.inferred.out()
	}
	return in, out
}

// InSchema is the input schema [Tool.Schemas] returns, on the same terms,
// without inferring the output schema: validating a call and describing a
// tool to a model need only the input's, and a Func tool's output type is
// as costly to describe as its input type.
func (t *Tool) InSchema() *jsonschema.Schema {
	if t.InputSchema == nil && t.inferred != nil {
		return t.inferred.in()
	}
	return t.InputSchema
}

// namePattern is the rule ValidName checks, as error messages state it.
// It is checked with plain code: compiled, its bounded repetition was a
// tenth of the quiver command's package initialisation.
const namePattern = `^[a-zA-Z0-9_-]{1,64}$`

// ValidName reports whether name meets the strictest provider's rule for tool
// names: 1 to 64 ASCII letters, digits, '_' or '-'.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// Check reports what is wrong with t's declaration, if anything: a bad name, a
// missing Execute, an input schema that is not an object schema, policy
// properties that contradict each other.
//
// Check does not infer the schemas of a [Func] tool, which would undo their
// laziness: it checks instead that the input's Go type is one that infers to
// an object schema. Whether the type's fields can be described at all is
// found when the schemas are first used.
func (t *Tool) Check() error {
	if t == nil {
		return fmt.Errorf("tool: nil tool")
	}
	switch {
	case !ValidName(t.Name):
		return fmt.Errorf("tool %q: name must match %s", t.Name, namePattern)
	case t.Execute == nil:
		return fmt.Errorf("tool %q: no Execute function", t.Name)
	case t.InputSchema == nil && t.inferred == nil:
		return fmt.Errorf("tool %q: no input schema", t.Name)
	case t.InputSchema != nil && t.InputSchema.Type != "object":
		return fmt.Errorf("tool %q: input schema must have type \"object\", has %q", t.Name, t.InputSchema.Type)
	case t.InputSchema == nil && !objectType(t.inferred.inType):
		return fmt.Errorf("tool %q: input schema must have type \"object\": the input type %s is not a struct", t.Name, t.inferred.inType)
	case t.Risk != RiskLow && t.Risk != RiskHigh:
		return fmt.Errorf("tool %q: risk must be %q or %q, not %q", t.Name, RiskLow, RiskHigh, t.Risk)
	case t.ReadOnlyWhenLowRisk && t.CallRisk == nil:
		return fmt.Errorf("tool %q: ReadOnlyWhenLowRisk without a CallRisk that rates calls", t.Name)
	case t.WritesSubjectPaths && t.Annotations.ReadOnly:
		return fmt.Errorf("tool %q: annotated ReadOnly but WritesSubjectPaths", t.Name)
	}
	return nil
}

// objectType reports whether schema inference describes values of type t as
// JSON objects: structs and maps with string keys, behind any number of
// pointers. It is Check's stand-in for inferring a Func tool's input schema.
func objectType(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct || t.Kind() == reflect.Map && t.Key().Kind() == reflect.String
}

// MayChangeFiles reports whether a call of t rated risk may change files, by
// t's own declaration: every call may, unless t is annotated ReadOnly, or it
// rates its calls and promises that those it rates low change nothing
// (ReadOnlyWhenLowRisk) and this one is rated low. The policy reads it for
// the read-only write scope and for protected paths.
func (t *Tool) MayChangeFiles(risk Risk) bool {
	if t.Annotations.ReadOnly {
		return false
	}
	return !(t.ReadOnlyWhenLowRisk && t.CallRisk != nil && risk == RiskLow)
}

// RiskOf returns the rating of one call of t with the given validated
// arguments; tc resolves what CallRisk reads.
func (t *Tool) RiskOf(ctx context.Context, tc Context, args json.RawMessage) Rating {
	if t.CallRisk != nil {
		return t.CallRisk(ctx, tc, args)
	}
	return Rating{Risk: t.Risk}
}
