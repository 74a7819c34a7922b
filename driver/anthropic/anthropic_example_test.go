package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/tool"
)

type cityIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type weatherOut struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
}

// toolkit returns a Quiver toolkit serving one tool of the host's own, and
// what releases it.
func toolkit() (*quiver.Toolkit, func()) {
	weather := tool.Func("get_weather", "Current weather for a city.",
		func(ctx context.Context, tc tool.Context, in cityIn) (weatherOut, error) {
			return weatherOut{City: in.City, TempC: 4}, nil
		}, tool.ReadOnly())
	dir, _ := os.MkdirTemp("", "quiver-example")
	tk, err := quiver.New(quiver.WithRoot(dir), quiver.WithTools(weather))
	if err != nil {
		panic(err)
	}
	return tk, func() { tk.Close(); os.RemoveAll(dir) }
}

// A program that already calls the Messages API with the SDK hands Claude's
// tool_use blocks to a Quiver toolkit and gets back the one user message of
// tool_result blocks the API expects.
func Example() {
	ctx := context.Background()
	tk, done := toolkit()
	defer done()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"input_schema"`
			} `json:"tools"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &req)
		schema, _ := json.Marshal(req.Tools[0].InputSchema)
		fmt.Printf("%s offered %s with input_schema %s\n", r.URL.Path, req.Tools[0].Name, schema)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use",
			"usage":{"input_tokens":40,"output_tokens":20},"content":[
			{"type":"text","text":"Let me check."},
			{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Oslo"}},
			{"type":"tool_use","id":"toolu_2","name":"get_weather","input":{"town":"Bergen"}}]}`)
	}))
	defer srv.Close()
	client := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-ant-example"))

	// Toolkit tools -> the SDK request.
	tools, _ := tk.AllowedTools(ctx)
	params, _ := anthropic.Params("claude-sonnet-4-5", driver.Request{
		Messages: []driver.Message{driver.UserMessage("Weather in Oslo and Bergen?")},
		Tools:    driver.Definitions(tools, false),
	})
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		panic(err)
	}

	// tool_use blocks -> InvokeCall -> one user message of tool_result blocks.
	calls, _, _ := anthropic.ToolCalls(msg)
	var results []driver.ToolResult
	for _, c := range calls {
		out, err := tk.InvokeCall(ctx, c)
		results = append(results, driver.ResultFor(c, out.Content, err))
	}
	params.Messages = append(params.Messages, msg.ToParam(), anthropic.ToolResults(results))
	b, _ := json.MarshalIndent(params.Messages[2], "", "  ")
	fmt.Println(string(b))
	// Output:
	// /v1/messages offered get_weather with input_schema {"additionalProperties":false,"properties":{"city":{"description":"the city","type":"string"}},"required":["city"],"type":"object"}
	// {
	//   "content": [
	//     {
	//       "tool_use_id": "toolu_1",
	//       "content": [
	//         {
	//           "text": "{\"city\":\"Oslo\",\"temp_c\":4}",
	//           "type": "text"
	//         }
	//       ],
	//       "type": "tool_result"
	//     },
	//     {
	//       "tool_use_id": "toolu_2",
	//       "is_error": true,
	//       "content": [
	//         {
	//           "text": "Error executing tool get_weather: INVALID_ARGUMENTS: field \"city\": required field is missing",
	//           "type": "text"
	//         }
	//       ],
	//       "type": "tool_result"
	//     }
	//   ],
	//   "role": "user"
	// }
}
