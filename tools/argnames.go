package tools

import "github.com/quiverkit/quiver/tool"

// A few arguments keep the camelCase name of the contract a tool follows
// (search_code's filePattern, validate_output's outputType: the 004 agent
// tools), where every other key Quiver chooses is snake_case. A model that
// writes Quiver's style is not refused for it: such an argument is also
// accepted in snake_case: the input type has a second field, of the same
// meaning, which Go callers leave empty.

// argName is one argument that has two names.
type argName struct {
	contract, snake string
}

// value returns the argument's value and the name the call gave it by.
// A call that gives both names with different values is refused: which
// one it meant cannot be known. The same value under both names is that
// value.
func (n argName) value(contract, snake string) (v, field string, err error) {
	switch {
	case snake == "":
		return contract, n.contract, nil
	case contract == "" || contract == snake:
		return snake, n.snake, nil
	}
	return "", "", tool.Errorf(tool.CodeInvalidArguments,
		"fields %q and %q are one argument, spelled two ways, and this call gives them different values (%q and %q): give one",
		n.contract, n.snake, contract, snake).WithDetail("field", n.snake)
}
