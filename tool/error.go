package tool

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code. Codes never change meaning;
// hosts and models may branch on them.
type Code string

// The error codes. See docs/design.md section 3 for when each applies.
const (
	CodeToolNotFound             Code = "TOOL_NOT_FOUND"
	CodeToolNotAllowed           Code = "TOOL_NOT_ALLOWED"
	CodeApprovalDenied           Code = "APPROVAL_DENIED"
	CodeInvalidToolArgumentsType Code = "INVALID_TOOL_ARGUMENTS_TYPE"
	CodeInvalidArguments         Code = "INVALID_ARGUMENTS"
	CodeSandboxViolation         Code = "SANDBOX_VIOLATION"
	CodeNotFound                 Code = "NOT_FOUND" // the path or the job a call names does not exist (for this session); not retriable
	CodeTimeout                  Code = "TIMEOUT"
	CodeCancelled                Code = "CANCELLED"
	CodeExecutionFailed          Code = "EXECUTION_FAILED"
	CodeBudgetExceeded           Code = "BUDGET_EXCEEDED"
	CodeInternal                 Code = "INTERNAL"
)

// CodeNetworkDenied means the call would reach a network address its tool
// may not reach: web_fetch refuses loopback, private, link-local and other
// non-public addresses unless the operator set [web] allow_private. It is
// not SANDBOX_VIOLATION, which means a path outside the workspace: the
// boundary and the fix differ (another URL, or the operator's setting).
// Not retriable with the same URL.
const CodeNetworkDenied Code = "NETWORK_DENIED"

// CodeSandboxUnavailable means the kernel cannot confine the process a tool
// would start, so it was not started: Quiver never runs a program unconfined
// silently (see package sandbox). Not retriable.
const CodeSandboxUnavailable Code = "SANDBOX_UNAVAILABLE"

// CodeStoreUnavailable means the shared store the call needs (the output
// cache in Redis that several `quiver serve` replicas share) cannot be
// reached, so the call did nothing: the ref it reads may well exist.
// Retriable: the same call may succeed once the store is back. It is not
// EXECUTION_FAILED (the tool did not run and fail) nor NOT_FOUND (nothing
// is known to be missing), and the fix is the operator's.
const CodeStoreUnavailable Code = "STORE_UNAVAILABLE"

// CodeNoConnection means the workspace's remote backend has no connection
// it may use: no token, a token the host refuses, or a repository the token
// cannot read. Its message is the one specification 004 gives, "No active
// GitHub connection found"; Details say which of the three it was. Not
// retriable: the fix is the operator's (a token, its scopes).
const CodeNoConnection Code = "NO_CONNECTION"

// CodeRateLimited means the remote backend's API refused the call for its
// rate limit and the limit resets later than the backend waits: Details
// carry reset_at (RFC 3339). Retriable, after that time.
const CodeRateLimited Code = "RATE_LIMITED"

// CodeTreeTruncated means a remote repository's tree is larger than the API
// lists and walking it directory by directory did not finish within its
// bound (or one directory alone is over the API's limit): the listing
// would be incomplete, so the call returns none. Not retriable; a narrower
// path may succeed.
const CodeTreeTruncated Code = "TREE_TRUNCATED"

// CodeLimitExceeded means the call reached a limit on what it may use: a
// command a [sandbox.limits] limit (processes, memory, CPU time) stopped —
// its processes are gone, and the message names the limit and its setting
// — or a background job or session beyond the number a session may run at
// once. Not retriable as it is: the same command reaches the same limit,
// and a job or session is admitted once one of the session's has ended.
const CodeLimitExceeded Code = "LIMIT_EXCEEDED"

// Retriable reports whether a call that failed with c may succeed when the model
// tries again with other arguments or later: true for argument errors and
// timeouts, and a shared store that was unreachable or a rate limit spent (later), false for everything a retry cannot change.
func (c Code) Retriable() bool {
	switch c {
	case CodeInvalidToolArgumentsType, CodeInvalidArguments, CodeTimeout, CodeStoreUnavailable, CodeRateLimited:
		return true
	}
	return false
}

// Error is the error every step of the pipeline returns. It carries a stable
// Code, the tool it concerns, and the cause, which it unwraps to, in the way
// *fs.PathError carries the operation, the path and the cause.
type Error struct {
	Code      Code
	Message   string // what went wrong, written for the model: it names the field, path or rule
	Tool      string // the tool's name, when known
	Retriable bool
	Details   map[string]any // structured extras (the field, the rule, the matches...)
	Err       error          // the cause, if any
}

// Errorf returns an *Error with code c and a formatted message. Retriable is
// c's default. A %w verb in format sets the cause.
func Errorf(c Code, format string, args ...any) *Error {
	wrapped := fmt.Errorf(format, args...)
	return &Error{Code: c, Message: wrapped.Error(), Retriable: c.Retriable(), Err: errors.Unwrap(wrapped)}
}

// Error returns "CODE: message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// WithTool returns e with its tool name set, unless it already had one.
func (e *Error) WithTool(name string) *Error {
	if e.Tool == "" {
		e.Tool = name
	}
	return e
}

// WithCause records err as e's cause (errors.Is and errors.As see it) and
// returns e: for a message written for the model, such as a program's own
// standard error, that should not repeat the cause's text.
func (e *Error) WithCause(err error) *Error {
	e.Err = err
	return e
}

// WithDetail records a structured detail on e and returns e.
func (e *Error) WithDetail(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// FieldError is err, a refusal of the value of argument field, with the
// field named: in the message and as Details["field"], as every refusal of
// an argument names it. err's code, retriability and details are kept,
// and err is wrapped.
func FieldError(field string, err error) *Error {
	te := AsError(err)
	out := &Error{Code: te.Code, Message: fmt.Sprintf("field %q: %s", field, te.Message), Retriable: te.Retriable, Err: err}
	for k, v := range te.Details {
		out.WithDetail(k, v)
	}
	return out.WithDetail("field", field)
}

// AsError returns err as an *Error: itself if it is one (or wraps one), and
// otherwise an EXECUTION_FAILED error that wraps it. A nil err gives nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	return &Error{Code: CodeExecutionFailed, Message: err.Error(), Err: err}
}

// CodeOf returns the code of err, or "" when err is not (and wraps no) *Error.
func CodeOf(err error) Code {
	var te *Error
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}
