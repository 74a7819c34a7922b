// Package jsonkeys checks the JSON keys Quiver writes: every key Quiver
// chooses is snake_case (issue 33), so a struct that reaches encoding/json
// must tag each exported field, or the field's Go name (InputTokens,
// ReadOnly) becomes its key. Tests of the packages that write JSON call
// [Problems] on the types they write; it is for tests only.
package jsonkeys

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// module is the import path prefix of Quiver's own types: the checker
// descends only into them, since another module's keys are its contract.
const module = "github.com/quiverkit/quiver"

var snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

var (
	marshaler     = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// Problems lists, as "Type.Field: why", every exported field of t and of the
// Quiver types reachable from it whose JSON key is not snake_case: a field
// without a json tag, or a tag naming another style. Keys in contracts are
// others' names that Quiver keeps (filePattern) and pass. Types of other
// modules, and types that marshal themselves, are not descended into.
func Problems(t reflect.Type, contracts ...string) []string {
	c := checker{seen: map[reflect.Type]bool{}, contracts: contracts}
	c.walk(t)
	return c.problems
}

type checker struct {
	seen      map[reflect.Type]bool
	contracts []string
	problems  []string
}

func (c *checker) walk(t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || c.seen[t] || !own(t) || marshalsItself(t) {
		return
	}
	c.seen[t] = true
	for f := range t.Fields() {
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag, tagged := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-" && tag == "-":
			continue
		case f.Anonymous && name == "":
			c.walk(f.Type) // encoding/json lifts an untagged embedded struct's fields
			continue
		case !tagged || name == "":
			c.problems = append(c.problems, fmt.Sprintf("%s.%s: no json tag, so its key is %q", t, f.Name, f.Name))
		case !snake.MatchString(name) && !slices.Contains(c.contracts, name):
			c.problems = append(c.problems, fmt.Sprintf("%s.%s: key %q is not snake_case", t, f.Name, name))
		}
		c.walk(f.Type)
	}
}

// own reports whether t is a type of Quiver's module (or an unnamed struct
// declared there, which has no package path of its own).
func own(t reflect.Type) bool {
	return t.PkgPath() == "" || t.PkgPath() == module || strings.HasPrefix(t.PkgPath(), module+"/")
}

func marshalsItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(marshaler) || p.Implements(marshaler) || t.Implements(textMarshaler) || p.Implements(textMarshaler)
}
