package config

import (
	"encoding"
	"reflect"
	"regexp"
	"strings"
	"sync"
)

// go-toml words a value of the wrong type in Go's terms: "cannot decode
// TOML string into struct field config.Policy.Allow of type []config.Rule".
// A configuration error is a sentence about the file (issue 33), so the
// message is rewritten in TOML's terms: "policy.allow: want a list of
// strings, not a string".

// typeMismatch matches go-toml's message for a value of the wrong type; its
// groups are the TOML kind written and the Go type wanted.
var typeMismatch = regexp.MustCompile(`^cannot decode TOML (.+?) into (?:struct field \S+ of type |a Go value of type )?(\S+)$`)

// typeSentence rewrites go-toml's message for a value of the wrong type at
// key; ok is false for any other message.
func typeSentence(key []string, msg string) (string, bool) {
	m := typeMismatch.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	where := strings.Join(key, ".")
	if where == "" {
		where = "this value"
	}
	want := "a value of another type"
	if t, ok := configTypes()[m[2]]; ok {
		want = tomlKind(t)
	}
	return where + ": want " + want + ", not " + article(m[1]), true
}

// article puts "a" or "an" before a TOML kind: "a string", "an integer".
func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// tomlKind names what a value of Go type t is written as in TOML.
func tomlKind(t reflect.Type) string {
	switch n := tomlNoun(t); n {
	case "boolean":
		return "true or false"
	case "list":
		switch elem := tomlNoun(t.Elem()); elem {
		case "table":
			return "an array of tables ([[...]])"
		case "", "list":
			return "a list"
		default:
			return "a list of " + elem + "s"
		}
	case "":
		return "a value of another type"
	default:
		return article(n)
	}
}

// tomlNoun is the TOML kind of a value of Go type t, as one word; "" when
// t has none.
func tomlNoun(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(textUnmarshaler) || t.Implements(textUnmarshaler) {
		return "string"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return tomlNoun(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "table"
	}
	return ""
}

// configTypes maps the name go-toml gives each Go type a configuration
// file decodes into ("[]config.Rule") to the type.
var configTypes = sync.OnceValue(func() map[string]reflect.Type {
	types := map[string]reflect.Type{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		if _, seen := types[t.String()]; seen {
			return
		}
		types[t.String()] = t
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(t.Elem())
		case reflect.Struct:
			for f := range t.Fields() {
				if f.IsExported() {
					walk(f.Type)
				}
			}
		}
	}
	walk(reflect.TypeFor[Config]())
	walk(reflect.TypeFor[specDoc]())
	return types
})
