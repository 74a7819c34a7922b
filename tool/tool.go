package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

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

// Annotations are the MCP tool hints. They describe the tool to clients and to
// the policy: a tool that is not ReadOnly does not run under the read-only write
// scope.
type Annotations struct {
	ReadOnly    bool // the tool does not change its environment
	Destructive bool // the tool may destroy or overwrite data (meaningful when not ReadOnly)
	Idempotent  bool // calling it twice with the same arguments has no further effect
	OpenWorld   bool // the tool reaches outside the workspace (network, other systems)
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
}

// Tool is one callable tool. Most tools are built with [Func]; providers that
// learn their tools at run time (MCP servers, command templates) fill this in
// directly.
//
// The pipeline validates arguments against InputSchema before Execute sees them,
// so Execute may rely on the schema holding. Execute must honour ctx.
type Tool struct {
	Name         string
	Description  string
	InputSchema  *jsonschema.Schema // an object schema
	OutputSchema *jsonschema.Schema // optional
	Risk         Risk
	Annotations  Annotations

	// Subjects names what a call acts on, for call-level policy rules. It is
	// given validated arguments. Nil means the tool has no subjects.
	Subjects func(args json.RawMessage) ([]Subject, error)

	// CallRisk, when set, classifies one call; it overrides Risk for that call
	// (exec_command rates `git status` low and `rm` high). It is given
	// validated arguments.
	CallRisk func(args json.RawMessage) Risk

	// Execute runs the tool. A returned error that is not a *Error becomes
	// EXECUTION_FAILED.
	Execute func(ctx context.Context, tc Context, args json.RawMessage) (Result, error)
}

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ValidName reports whether name meets the strictest provider's rule for tool
// names: 1 to 64 ASCII letters, digits, '_' or '-'.
func ValidName(name string) bool { return namePattern.MatchString(name) }

// Check reports what is wrong with t's declaration, if anything: a bad name, a
// missing Execute, an input schema that is not an object schema.
func (t *Tool) Check() error {
	switch {
	case t == nil:
		return fmt.Errorf("tool: nil tool")
	case !ValidName(t.Name):
		return fmt.Errorf("tool %q: name must match %s", t.Name, namePattern)
	case t.Execute == nil:
		return fmt.Errorf("tool %q: no Execute function", t.Name)
	case t.InputSchema == nil:
		return fmt.Errorf("tool %q: no input schema", t.Name)
	case t.InputSchema.Type != "object":
		return fmt.Errorf("tool %q: input schema must have type \"object\", has %q", t.Name, t.InputSchema.Type)
	case t.Risk != RiskLow && t.Risk != RiskHigh:
		return fmt.Errorf("tool %q: risk must be %q or %q, not %q", t.Name, RiskLow, RiskHigh, t.Risk)
	}
	return nil
}

// RiskOf returns the risk of one call of t with the given validated arguments.
func (t *Tool) RiskOf(args json.RawMessage) Risk {
	if t.CallRisk != nil {
		return t.CallRisk(args)
	}
	return t.Risk
}
