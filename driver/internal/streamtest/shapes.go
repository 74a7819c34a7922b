package streamtest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
)

// PNG is a tiny image for image parts.
var PNG = tool.Image("image/png", []byte("\x89PNG\r\n\x1a\n"))

// Conversation returns a conversation holding every message shape a driver
// converts: system text; user text; user text with an image; an assistant
// turn with text and two calls; their results (text and JSON) in one tool
// message; an assistant turn with only a call, whose id the driver generated
// and which carries a thought signature and a caller; its results spread over
// two tool messages (an image, and an error); an assistant turn with only
// text; and a user turn.
func Conversation() []driver.Message {
	oslo := driver.ToolCall{ID: "call_oslo", Name: "weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)}
	paris := driver.ToolCall{ID: "call_paris", Name: "weather", Arguments: json.RawMessage(`{"city":"Paris","unit":"c"}`)}
	shot := driver.ToolCall{ID: "call_gen_2", Name: "screenshot", Arguments: json.RawMessage(`{}`), Metadata: map[string]string{
		driver.MetaIDGenerated: "true", driver.MetaThoughtSignature: "c2lnbmF0dXJl",
		driver.MetaCallerType: "program", driver.MetaCallerID: "call_prog",
	}}
	osloRes := driver.ResultFor(oslo, tool.Text("Oslo: 4°C, rain"), nil)
	parisRes := driver.ResultFor(paris, tool.JSON(map[string]any{"city": "Paris", "temp_c": 18}), nil)
	shotRes := driver.ResultFor(shot, tool.Result{Parts: []tool.Part{{Type: tool.PartText, Text: "the screen:"}, PNG}}, nil)
	failRes := driver.ResultFor(driver.ToolCall{ID: "call_fail", Name: "weather"}, tool.Result{}, tool.Errorf(tool.CodeToolNotFound, "no tool named %q", "weather_v2"))
	return []driver.Message{
		driver.SystemMessage("You are terse."),
		driver.UserMessage("Weather in Oslo and Paris?"),
		driver.UserParts(tool.Part{Type: tool.PartText, Text: "And what is on this screen?"}, PNG),
		driver.AssistantMessage("Checking both.", oslo, paris),
		driver.ToolMessage(osloRes, parisRes),
		driver.AssistantMessage("", shot),
		driver.ToolMessage(shotRes),
		driver.ToolMessage(failRes),
		driver.AssistantMessage("Oslo is rainy, Paris is mild."),
		driver.UserMessage("Thanks."),
	}
}

type weatherIn struct {
	City string `json:"city" jsonschema:"the city name"`
	Unit string `json:"unit,omitempty" jsonschema:"temperature unit" enum:"c,f"`
	Days []int  `json:"days,omitempty" jsonschema:"days ahead"`
}

type labelsIn struct {
	Labels map[string]string `json:"labels" jsonschema:"labels to set"`
}

// Catalogue returns n tool definitions: weather (strict), labels (strict
// asked for, but an open map: strict mode cannot express it), screenshot (no
// parameters), and then tools shaped like weather, half of them strict, as a
// big toolkit offers them. Every tool has its own schema, as in a toolkit.
func Catalogue(n int) []driver.ToolDefinition {
	defs := []driver.ToolDefinition{
		{Name: "weather", Description: "Current weather for a city.", Parameters: mustInfer[weatherIn](), Strict: true},
		{Name: "labels", Description: "Set labels.", Parameters: mustInfer[labelsIn](), Strict: true},
		{Name: "screenshot", Description: "Take a screenshot."},
	}
	for i := len(defs); i < n; i++ {
		defs = append(defs, driver.ToolDefinition{Name: fmt.Sprintf("tool_%03d", i), Description: "A tool of a big catalogue.", Parameters: mustInfer[weatherIn](), Strict: i%2 == 0})
	}
	if n < len(defs) {
		defs = defs[:n]
	}
	return defs
}

func mustInfer[T any]() *jsonschema.Schema {
	s, err := schema.Infer[T]()
	if err != nil {
		panic(err)
	}
	return s
}

// BenchTools measures converting a 100-tool catalogue with convert: "cold",
// every schema new (a toolkit's first turn), and "warm", the same catalogue
// again (every later turn of an agent loop).
func BenchTools[T any](b *testing.B, convert func([]driver.ToolDefinition) (T, error)) {
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			defs := Catalogue(100)
			b.StartTimer()
			if _, err := convert(defs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		defs := Catalogue(100)
		if _, err := convert(defs); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := convert(defs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
