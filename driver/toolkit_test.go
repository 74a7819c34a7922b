package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type weatherOut struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
}

func weatherTool() *tool.Tool {
	return tool.Func("weather", "Current weather for a city.",
		func(ctx context.Context, tc tool.Context, in weatherIn) (weatherOut, error) {
			if in.City == "Atlantis" {
				return weatherOut{}, tool.Errorf(tool.CodeExecutionFailed, "no weather station in %q", in.City)
			}
			return weatherOut{City: in.City, TempC: 18}, nil
		}, tool.ReadOnly())
}

// miniToolkit is the smallest toolkit over real tool.Tools: it looks the
// name up, insists on an object, and runs the tool. The root package's
// Toolkit does this and much more; these tests only need the contract.
func miniToolkit(tools ...*tool.Tool) func(context.Context, driver.ToolCall) (tool.Result, error) {
	byName := map[string]*tool.Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	return func(ctx context.Context, c driver.ToolCall) (tool.Result, error) {
		t := byName[c.Name]
		if t == nil {
			return tool.Result{}, tool.Errorf(tool.CodeToolNotFound, "no tool named %q", c.Name).WithTool(c.Name)
		}
		if len(c.Arguments) == 0 || c.Arguments[0] != '{' {
			return tool.Result{}, tool.Errorf(tool.CodeInvalidToolArgumentsType, "arguments must be a JSON object").WithTool(c.Name)
		}
		return t.Execute(ctx, tool.NewContext(c.ID, c.Name, nil, tool.NewScope(nil, nil)), c.Arguments)
	}
}

func TestDefinitions(t *testing.T) {
	w := weatherTool()
	defs := driver.Definitions([]*tool.Tool{w, nil}, true)
	in, _ := w.Schemas()
	want := []driver.ToolDefinition{{Name: "weather", Description: "Current weather for a city.", Parameters: in, Strict: true}}
	if d := cmp.Diff(want, defs); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestResultForAToolkitsAnswer: a loop answers each call with ResultFor of
// what the toolkit returned, and a call whose arguments did not parse with
// UnparsedResult, which runs nothing.
func TestResultForAToolkitsAnswer(t *testing.T) {
	invoke := miniToolkit(weatherTool())
	answer := func(c driver.ToolCall) driver.ToolResult {
		if c.Arguments == nil {
			return driver.UnparsedResult(c)
		}
		res, err := invoke(context.Background(), c)
		return driver.ResultFor(c, res, err)
	}
	meta := map[string]string{driver.MetaThoughtSignature: "c2ln"}
	tests := []struct {
		name    string
		call    driver.ToolCall
		want    string
		isError bool
	}{
		{"a call runs and its output comes back", driver.ToolCall{ID: "c1", Name: "weather", Arguments: json.RawMessage(`{"city":"Oslo"}`), Metadata: meta},
			`{"city":"Oslo","temp_c":18}`, false},
		{"a tool's own failure is an error result with its code", driver.ToolCall{ID: "c2", Name: "weather", Arguments: json.RawMessage(`{"city":"Atlantis"}`)},
			`Error executing tool weather: EXECUTION_FAILED: no weather station in "Atlantis"`, true},
		{"a name the toolkit does not have is TOOL_NOT_FOUND", driver.ToolCall{ID: "c3", Name: "get_wether", Arguments: json.RawMessage(`{}`)},
			`Error executing tool get_wether: TOOL_NOT_FOUND: no tool named "get_wether"`, true},
		{"arguments that did not parse are refused without running", driver.ToolCall{ID: "c4", Name: "weather", Metadata: meta},
			"Error executing tool weather: INVALID_TOOL_ARGUMENTS_TYPE: the arguments of this call are not a JSON object; send the call again with a JSON object", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := answer(tt.call)
			if got.CallID != tt.call.ID || got.Name != tt.call.Name || got.IsError != tt.isError || got.Text() != tt.want {
				t.Errorf("got %+v (text %q)", got, got.Text())
			}
			if d := cmp.Diff(tt.call.Metadata, got.Metadata); d != "" {
				t.Errorf("metadata not carried to the result:\n%s", d)
			}
		})
	}
}

func TestResultFor(t *testing.T) {
	call := driver.ToolCall{ID: "c", Name: "n"}
	t.Run("a result the tool marked as an error stays one", func(t *testing.T) {
		r := driver.ResultFor(call, tool.Result{Parts: []tool.Part{{Type: tool.PartText, Text: "exit status 1"}}, IsError: true}, nil)
		if !r.IsError || r.Text() != "exit status 1" {
			t.Errorf("%+v", r)
		}
	})
	t.Run("an empty result says so", func(t *testing.T) {
		if r := driver.ResultFor(call, tool.Result{}, nil); r.Text() != "(no output)" {
			t.Errorf("%+v", r)
		}
	})
	t.Run("a plain error becomes EXECUTION_FAILED", func(t *testing.T) {
		r := driver.ResultFor(call, tool.Result{}, fmt.Errorf("wrapped: %w", errors.New("disk full")))
		if !r.IsError || !strings.Contains(r.Text(), "EXECUTION_FAILED: wrapped: disk full") {
			t.Errorf("%+v", r)
		}
	})
	t.Run("images are kept", func(t *testing.T) {
		res := tool.Result{Parts: []tool.Part{tool.Image("image/png", []byte{1, 2})}}
		if r := driver.ResultFor(call, res, nil); !r.HasImages() || r.Text() != "[image image/png, 2 bytes]" {
			t.Errorf("%+v", r)
		}
	})
}

func TestMessages(t *testing.T) {
	call := driver.ToolCall{ID: "1", Name: "n", Arguments: json.RawMessage(`{}`)}
	msgs := []driver.Message{
		driver.SystemMessage("be brief"),
		driver.UserMessage("hi"),
		driver.AssistantMessage("", call),
		driver.ToolMessage(driver.TextResult("1", "n", "a")),
		driver.ToolMessage(driver.TextResult("2", "n", "b")),
		driver.UserMessage("thanks"),
	}
	results, next := driver.ToolTurns(msgs, 3)
	if next != 5 || len(results) != 2 || results[1].CallID != "2" {
		t.Errorf("ToolTurns: %d results, next %d", len(results), next)
	}
	if msgs[2].Parts != nil || msgs[2].Text() != "" || msgs[0].Text() != "be brief" {
		t.Errorf("an assistant turn with only calls has no text parts: %+v", msgs[2])
	}
	resp := &driver.Response{Text: "ok", ToolCalls: []driver.ToolCall{call}}
	if m := resp.Message(); m.Role != driver.RoleAssistant || m.Text() != "ok" || len(m.ToolCalls) != 1 {
		t.Errorf("Response.Message: %+v", m)
	}
}
