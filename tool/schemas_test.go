package tool_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
)

// bigInput is an input the size of a real tool's: inferring its schema
// allocates hundreds of times.
type bigInput struct {
	Path     string            `json:"path" jsonschema:"the file to read"`
	Offset   int               `json:"offset,omitempty" minimum:"1"`
	Limit    int               `json:"limit,omitempty" minimum:"1" maximum:"2000"`
	Pattern  string            `json:"pattern,omitempty" minLength:"1"`
	Mode     string            `json:"mode,omitempty" enum:"a,b,c"`
	Globs    []string          `json:"globs,omitempty" maxItems:"16"`
	Env      map[string]string `json:"env,omitempty"`
	Edits    []bigEdit         `json:"edits,omitempty"`
	Options  *bigOptions       `json:"options,omitempty"`
	Timeout  float64           `json:"timeout,omitempty" default:"30"`
	Recurse  bool              `json:"recurse,omitempty"`
	Encoding string            `json:"encoding,omitempty" pattern:"^[a-z0-9-]+$"`
}

type bigEdit struct {
	Old   string `json:"old" jsonschema:"the text to replace"`
	New   string `json:"new" jsonschema:"the text to put in its place"`
	Count int    `json:"count,omitempty" minimum:"1"`
}

type bigOptions struct {
	Hidden  bool     `json:"hidden,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	Depth   int      `json:"depth,omitempty" maximum:"64"`
}

type bigOutput struct {
	Content string    `json:"content"`
	Lines   int       `json:"lines"`
	Edits   []bigEdit `json:"edits,omitempty"`
}

func bigTool() *tool.Tool {
	return tool.Func("big", "A tool with a large input.",
		func(context.Context, tool.Context, bigInput) (bigOutput, error) { return bigOutput{}, nil },
		tool.ReadOnly(),
		tool.WithSchema(func(s *jsonschema.Schema) { s.Properties["mode"].Description = "adjusted" }))
}

// TestFuncBuildsWithoutInferring checks that building a Func tool does not
// infer its schemas: a program builds every tool it offers at start-up, and
// inference was most of what that cost. The bound is relative to inference
// measured here, so it does not depend on the jsonschema-go version.
func TestFuncBuildsWithoutInferring(t *testing.T) {
	build := testing.AllocsPerRun(20, func() { bigTool() })
	infer := testing.AllocsPerRun(20, func() {
		if _, err := schema.Infer[bigInput](); err != nil {
			t.Fatal(err)
		}
		schema.InferOutput[bigOutput]()
	})
	t.Logf("building allocates %.0f times, inferring its schemas %.0f", build, infer)
	if build*10 > infer {
		t.Errorf("building a Func tool allocates %.0f times, inferring its schemas %.0f: building should not infer", build, infer)
	}
}

// TestInSchemaInfersTheInputAlone checks that asking for a Func tool's input
// schema alone, as a call's validation does, leaves the output type
// undescribed: it allocates as inferring the input does, and less than
// inferring both. Asked for later, Schemas returns the same input schema.
func TestInSchemaInfersTheInputAlone(t *testing.T) {
	inputOnly := testing.AllocsPerRun(20, func() {
		if _, err := schema.Infer[bigInput](); err != nil {
			t.Fatal(err)
		}
	})
	output := testing.AllocsPerRun(20, func() { schema.InferOutput[bigOutput]() })
	first := testing.AllocsPerRun(20, func() { bigTool().InSchema() })
	t.Logf("InSchema of a fresh tool allocates %.0f times; inferring the input %.0f, the output %.0f", first, inputOnly, output)
	if first >= inputOnly+output {
		t.Errorf("InSchema allocates %.0f times, inferring both schemas %.0f: it inferred the output too", first, inputOnly+output)
	}
	tl := bigTool()
	in := tl.InSchema()
	if in == nil || in.Properties["mode"].Description != "adjusted" {
		t.Fatalf("InSchema() = %+v, want the inferred, adjusted input schema", in)
	}
	again, out := tl.Schemas()
	if again != in {
		t.Error("Schemas after InSchema inferred the input schema again")
	}
	if out == nil || out.Properties["content"] == nil {
		t.Errorf("output schema %+v, want the inferred one", out)
	}
	lit := &tool.Tool{Name: "lit", InputSchema: &jsonschema.Schema{Type: "object"}}
	if got := lit.InSchema(); got != lit.InputSchema {
		t.Errorf("literal: InSchema() = %p, want its field %p", got, lit.InputSchema)
	}
}

// TestSchemasConcurrent reads a fresh Func tool's schemas from many
// goroutines at once, as listings do (run with -race): every reader gets
// the same schemas, inferred once, with the WithSchema adjustment applied.
func TestSchemasConcurrent(t *testing.T) {
	tl := bigTool()
	const n = 16
	ins := make([]*jsonschema.Schema, n)
	outs := make([]*jsonschema.Schema, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { ins[i], outs[i] = tl.Schemas() })
	}
	wg.Wait()
	for i := range n {
		if ins[i] != ins[0] || outs[i] != outs[0] {
			t.Fatalf("reader %d got other schemas than reader 0: inferred more than once", i)
		}
	}
	in, out := ins[0], outs[0]
	if in == nil || in.Type != "object" || in.Properties["path"] == nil {
		t.Fatalf("input schema %+v", in)
	}
	if got := in.Properties["mode"].Description; got != "adjusted" {
		t.Errorf("mode's description %q: the WithSchema adjustment was not applied", got)
	}
	if out == nil || out.Properties["content"] == nil {
		t.Errorf("output schema %+v", out)
	}
	if tl.InputSchema != nil || tl.OutputSchema != nil {
		t.Error("Schemas filled the exported fields of a Func tool")
	}
}

// TestSchemasOfLiteral checks that a tool filled in directly is described by
// its fields, and that a field set on a copy of a Func tool wins over
// inference.
func TestSchemasOfLiteral(t *testing.T) {
	in, out := &jsonschema.Schema{Type: "object"}, &jsonschema.Schema{Type: "object"}
	lit := &tool.Tool{Name: "lit", InputSchema: in, OutputSchema: out}
	if gotIn, gotOut := lit.Schemas(); gotIn != in || gotOut != out {
		t.Errorf("literal: Schemas() = %p, %p, want its fields %p, %p", gotIn, gotOut, in, out)
	}
	c := *bigTool()
	c.InputSchema = in
	gotIn, gotOut := c.Schemas()
	if gotIn != in {
		t.Errorf("copy of a Func tool: input schema %p, want the field set on it %p", gotIn, in)
	}
	if gotOut == nil || gotOut.Properties["content"] == nil {
		t.Errorf("copy of a Func tool: output schema %+v, want the inferred one", gotOut)
	}
}

// TestFuncCheckDoesNotInfer checks when Func finds a bad input type, now
// that it infers on first use: an input that is not a struct at
// construction, cheaply; an input that cannot be described, or an
// adjustment that spoils the schema, at first use, with the tool's name in
// the panic.
func TestFuncCheckDoesNotInfer(t *testing.T) {
	panics := func(f func()) (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = fmt.Sprint(r)
			}
		}()
		f()
		return ""
	}
	run := func(context.Context, tool.Context, string) (string, error) { return "", nil }
	if msg := panics(func() { tool.Func("str", "d", run) }); !strings.Contains(msg, `"str"`) || !strings.Contains(msg, "object") {
		t.Errorf("Func with a string input: panic %q, want one about an object schema at construction", msg)
	}
	if msg := panics(func() {
		tool.Func("slice", "d", func(context.Context, tool.Context, []int) (string, error) { return "", nil })
	}); msg == "" {
		t.Error("Func with a slice input did not panic at construction")
	}
	for name, build := range map[string]func() *tool.Tool{
		"pointer": func() *tool.Tool {
			return tool.Func("ptr", "d", func(context.Context, tool.Context, *bigInput) (string, error) { return "", nil })
		},
		"map": func() *tool.Tool {
			return tool.Func("map", "d", func(context.Context, tool.Context, map[string]int) (string, error) { return "", nil })
		},
	} {
		tl := build()
		if in, _ := tl.Schemas(); in == nil || in.Type != "object" {
			t.Errorf("%s input: schema %+v, want an object schema", name, in)
		}
	}

	type chanInput struct {
		C chan int `json:"c"`
	}
	var undescribable *tool.Tool
	if msg := panics(func() {
		undescribable = tool.Func("chan", "d", func(context.Context, tool.Context, chanInput) (string, error) { return "", nil })
	}); msg != "" {
		t.Fatalf("Func panicked at construction, inferring: %s", msg)
	}
	if err := undescribable.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	for range 2 { // a sync.OnceValues panics again on every call
		if msg := panics(func() { undescribable.Schemas() }); !strings.Contains(msg, `tool.Func("chan")`) {
			t.Errorf("Schemas of an input with a channel: panic %q, want one naming the tool", msg)
		}
	}

	spoilt := tool.Func("spoilt", "d", func(context.Context, tool.Context, bigInput) (string, error) { return "", nil },
		tool.WithSchema(func(s *jsonschema.Schema) { s.Type = "array" }))
	if msg := panics(func() { spoilt.Schemas() }); !strings.Contains(msg, "object") {
		t.Errorf("Schemas after an adjustment to an array: panic %q, want one about an object schema", msg)
	}
}
