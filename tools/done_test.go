package tools

import (
	"testing"

	"github.com/quiverkit/quiver/tool"
)

func TestDoneCarriesTheMarkerAndTheSummary(t *testing.T) {
	e := newCacheEnv(t, nil)
	cases := []struct {
		name, args, summary, text string
	}{
		{"with a summary", `{"summary":"Fixed the parser; tests pass."}`, "Fixed the parser; tests pass.", "Done. Fixed the parser; tests pass."},
		{"without one", `{}`, "", "Done."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.run(newDone(), c.args)
			if err != nil {
				t.Fatal(err)
			}
			summary, ok := tool.IsDone(res)
			if !ok || summary != c.summary || res.String() != c.text {
				t.Errorf("IsDone = %q, %v; shown %q", summary, ok, res.String())
			}
		})
	}
}

func TestIsDoneIgnoresLookalikes(t *testing.T) {
	cases := []struct {
		name string
		res  tool.Result
	}{
		{"a tool that prints done", tool.Text("Done.")},
		{"a JSON part that says done", tool.JSON(map[string]bool{"done": true})},
		{"an error result", tool.Result{IsError: true, Output: DoneOutput{Done: true}}},
		{"a nil pointer", tool.Result{Output: (*DoneOutput)(nil)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := tool.IsDone(c.res); ok {
				t.Error("IsDone = true")
			}
		})
	}
	if s, ok := tool.IsDone(tool.Result{Output: &DoneOutput{Done: true, Summary: "s"}}); !ok || s != "s" {
		t.Errorf("pointer output: %q %v", s, ok)
	}
}

func TestDoneRefusesUnknownFields(t *testing.T) {
	e := newCacheEnv(t, nil)
	if _, err := e.run(newDone(), `{"result":"x"}`); tool.CodeOf(err) != tool.CodeInvalidArguments {
		t.Errorf("err = %v", err)
	}
}
