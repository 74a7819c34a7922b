package githubtest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// examplesJSON holds GitHub's recorded example responses for the operations
// the fake answers, as testdata/openapi/README.md says where from. Every
// answer starts as one of them, so that its shape is GitHub's and not a
// client library's.
//
//go:embed testdata/openapi/examples.json
var examplesJSON []byte

var recorded = func() map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(examplesJSON, &m); err != nil {
		panic(fmt.Sprintf("githubtest: testdata/openapi/examples.json: %v", err))
	}
	return m
}()

// example returns a fresh copy of the recorded example name, decoded with
// its numbers kept as written.
func example(name string) any {
	raw, ok := recorded[name]
	if !ok {
		panic("githubtest: no recorded example " + name)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(fmt.Sprintf("githubtest: example %s: %v", name, err))
	}
	return v
}

// exampleObject is example for an example that is a JSON object.
func exampleObject(name string) map[string]any {
	return example(name).(map[string]any)
}

// set overlays the fake's own values on an example: key, value pairs.
func set(m map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// obj is m[key] as an object, for overlaying a nested part of an example.
func obj(m map[string]any, key string) map[string]any {
	return m[key].(map[string]any)
}

// clone copies a decoded example (maps, lists and scalars).
func clone(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = clone(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = clone(e)
		}
		return l
	}
	return v
}

// rewrite replaces old by new, pair after pair, in every string of a
// decoded example: the example's URLs become the fake's.
func rewrite(v any, pairs ...string) any {
	r := strings.NewReplacer(pairs...)
	var walk func(any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				t[k] = walk(e)
			}
		case []any:
			for i, e := range t {
				t[i] = walk(e)
			}
		case string:
			return r.Replace(t)
		}
		return v
	}
	return walk(v)
}

// rebase points the URLs of an example about the repositories named (as
// owner/name) at rp on the fake: API URLs at the fake's, web URLs at
// github.com/owner/name.
func (s *Server) rebase(v any, rp *repo, names ...string) {
	full := rp.owner + "/" + rp.name
	var pairs []string
	for _, ex := range names {
		pairs = append(pairs, "https://api.github.com/repos/"+ex, s.repoURL(rp), "http://api.github.com/repos/"+ex, s.repoURL(rp),
			"github.com/"+ex, "github.com/"+full, "github.com:"+ex, "github.com:"+full)
	}
	rewrite(v, append(pairs, "https://api.github.com/", s.URL+"/", "http://api.github.com/", s.URL+"/")...)
}

// user is a simple-user for login, from the recorded repository's owner.
func (s *Server) user(login, kind string, id int) map[string]any {
	u := obj(exampleObject("full-repository-default-response"), "owner")
	rewrite(u, "https://api.github.com/users/octocat", s.URL+"/users/"+login, "https://github.com/octocat", "https://github.com/"+login)
	return set(u, "login", login, "id", id, "node_id", fmt.Sprintf("U_%d", id), "type", kind)
}
