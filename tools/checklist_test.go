package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// checklist is what a model must know about one tool (checklists/NAME.json):
// each item is a fact, and the words that show the model is told it.
type checklist struct {
	Items []struct {
		Know string `json:"know"` // the fact, for the person reading the list
		Say  string `json:"say"`  // words the model reads, in any case
		// Trip, when set, is a call that breaks the rule: it must fail, and
		// its error is one more place the words may be.
		Trip *struct {
			Files map[string]string `json:"files"` // written to a fresh workspace first
			Args  json.RawMessage   `json:"args"`
		} `json:"trip"`
	} `json:"items"`
}

// TestChecklists holds each built-in tool's short texts to its checklist:
// every item must be said by the tool's description, a parameter's
// description, or the error a call that trips the rule gets. Descriptions
// are short because the limits sit on the parameters they concern and the
// errors teach; this is what keeps them from losing a fact. A tool without
// a checklist fails, and so does a checklist without a tool.
func TestChecklists(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("checklists", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, f := range files {
		listed[strings.TrimSuffix(filepath.Base(f), ".json")] = true
	}
	for _, tl := range tools.All() {
		delete(listed, tl.Name)
		t.Run(tl.Name, func(t *testing.T) { checkTool(t, tl) })
	}
	for name := range listed {
		t.Errorf("checklists/%s.json: no built-in tool is called %s", name, name)
	}
}

func checkTool(t *testing.T, tl *tool.Tool) {
	raw, err := os.ReadFile(filepath.Join("checklists", tl.Name+".json"))
	if err != nil {
		t.Fatalf("no checklist: %v", err)
	}
	var cl checklist
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cl); err != nil {
		t.Fatalf("checklists/%s.json: %v", tl.Name, err)
	}
	if len(cl.Items) == 0 {
		t.Fatal("an empty checklist")
	}
	in, _ := tl.Schemas()
	texts := tl.Description + "\n" + strings.Join(descriptions(in), "\n")
	for _, it := range cl.Items {
		if it.Know == "" || it.Say == "" {
			t.Errorf("an item without know or say: %+v", it)
			continue
		}
		where := texts
		if it.Trip != nil {
			msg, ok := trip(t, tl.Name, it.Trip.Files, it.Trip.Args)
			if !ok {
				t.Errorf("%s: the trip %s did not fail", it.Know, it.Trip.Args)
				continue
			}
			where += "\n" + msg
			if !strings.Contains(strings.ToLower(where), strings.ToLower(it.Say)) {
				t.Errorf("%s: %q is in neither the texts nor the error %q", it.Know, it.Say, msg)
			}
			continue
		}
		if !strings.Contains(strings.ToLower(where), strings.ToLower(it.Say)) {
			t.Errorf("%s: %q is not in the description or a parameter's", it.Know, it.Say)
		}
	}
}

// descriptions are every description in s, nested ones included.
func descriptions(s *jsonschema.Schema) []string {
	if s == nil {
		return nil
	}
	out := []string{s.Description}
	for _, p := range s.Properties {
		out = append(out, descriptions(p)...)
	}
	out = append(out, descriptions(s.Items)...)
	return out
}

// trip runs a call of name in a fresh workspace through a toolkit, as a
// model's call runs, and returns the error text the model gets.
func trip(t *testing.T, name string, files map[string]string, args json.RawMessage) (string, bool) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	out, err := tk.Invoke(context.Background(), name, args)
	if err == nil {
		return "", false
	}
	return out.Content.Text(), true
}
