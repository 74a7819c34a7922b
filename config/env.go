package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// LayerEnv is the layer of QUIVER_* environment variables, merged after
// every file and before the command's flags.
const LayerEnv = "environment"

// EnvPrefix starts the name of every variable that sets a key.
const EnvPrefix = "QUIVER_"

// EnvKey is one key the environment may set.
type EnvKey struct {
	Name string // QUIVER_OUTPUT_STORE
	Key  string // output.store
	// Text says the variable's value is the key's text as it is (a string
	// or a word such as "deny"); otherwise it is written as in TOML: a
	// number, true or false, an array ["a", "b"] or an inline table {...}.
	Text bool
}

// EnvKeys are every key of the configuration that a variable sets, in the
// order of Config's fields: QUIVER_ and the key's path in capitals, its
// dots as underscores ([output] store is QUIVER_OUTPUT_STORE). A table
// whose keys are names (policy.tools, outputs, tools.cli.aliases) and a
// list of tables (tools.custom, tools.mcp.servers) is one variable holding
// the whole value.
func EnvKeys() []EnvKey {
	var keys []EnvKey
	var walk func(t reflect.Type, path []string)
	walk = func(t reflect.Type, path []string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			p := append(slices.Clone(path), name)
			ft := f.Type
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct && !reflect.PointerTo(ft.Elem()).Implements(textUnmarshaler) {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && !reflect.PointerTo(ft).Implements(textUnmarshaler) {
				walk(ft, p)
				continue
			}
			text := ft.Kind() == reflect.String || reflect.PointerTo(ft).Implements(textUnmarshaler)
			keys = append(keys, EnvKey{Name: EnvPrefix + strings.ToUpper(strings.Join(p, "_")), Key: strings.Join(p, "."), Text: text})
		}
	}
	walk(reflect.TypeFor[Config](), nil)
	return keys
}

// fromEnv reads the keys environ (as os.Environ gives it) sets, as one
// configuration, and the names of the variables it read. Each variable is
// decoded as its key would be in a file, strictly, and an error names the
// variable. Relative paths are relative to the current directory. A
// QUIVER_ variable that names no key is left alone: other parts of Quiver
// and the operator's own scripts use the prefix too.
func fromEnv(environ []string) (*Config, []string, error) {
	byName := map[string]EnvKey{}
	for _, k := range EnvKeys() {
		byName[k.Name] = k
	}
	out := &Config{}
	var names []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		k, known := byName[name]
		if !ok || !known {
			continue
		}
		doc := k.Key + " = " + value
		if k.Text {
			quoted, _ := json.Marshal(value) // JSON's escapes are TOML's
			doc = k.Key + " = " + string(quoted)
		}
		c, err := Parse("$"+name, []byte(doc))
		if err != nil {
			return nil, nil, fmt.Errorf("environment variable %s (%s): %w", name, k.Key, err)
		}
		if err := c.absolutePaths(); err != nil {
			return nil, nil, err
		}
		c.Path = "" // not a file: nothing to protect, nothing to resolve against
		mergeInto(out, c)
		names = append(names, name)
	}
	slices.Sort(names)
	return out, names, nil
}
