package config_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/provider/custom"
)

// TestCustomToolsPlacesErrors: a custom tool the provider refuses is an
// error at the place the file writes it, in the file's words
// (tools.custom[i]), one per tool; a tool no file wrote keeps the plain
// error, and a good file gives its tools.
func TestCustomToolsPlacesErrors(t *testing.T) {
	cfg, err := config.Parse("q.toml", []byte("[[tools.custom]]\nname = \"ok\"\ncommand = \"true\"\n\n"+
		"[[tools.custom]]\nname = \"x\"\ncommand = \"echo {y}\"\n\n[[tools.custom]]\nname = \"ok\"\ncommand = \"true\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.CustomTools()
	var got []config.Error
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ce *config.Error
		var se *custom.SpecError
		if !errors.As(e, &ce) || errors.As(e, &se) {
			t.Fatalf("%v: want a *config.Error that no longer holds the *custom.SpecError", e)
		}
		got = append(got, config.Error{Pos: ce.Pos, Msg: ce.Msg})
	}
	want := []config.Error{
		{Pos: config.Position{File: "q.toml", Line: 5, Col: 9}, Msg: "tools.custom[1] (x): command uses {y}, which is not a declared parameter"},
		{Pos: config.Position{File: "q.toml", Line: 9, Col: 9}, Msg: "tools.custom[2] (ok): duplicate tool name"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}

	cfg.Tools.Custom = []config.Custom{{Name: "x", Command: "echo {y}"}}
	if _, err := cfg.CustomTools(); err == nil || err.Error() != "tools.custom[0] (x): command uses {y}, which is not a declared parameter" {
		t.Errorf("a tool no file wrote: %v", err)
	}

	cfg.Tools.Custom = []config.Custom{{Name: "say", Command: "echo {text}", TimeoutSecs: 5, Risk: "low",
		Params: []config.CustomParam{{Name: "text", Required: true}}}}
	p, err := cfg.CustomTools()
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := p.Tools(context.Background())
	if len(tools) != 1 || tools[0].Name != "say" || tools[0].Risk != "low" {
		t.Errorf("tools: %+v", tools)
	}
}
