package openai

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/responses"
	"github.com/quiverkit/quiver/driver"
)

// FuzzSearchCalls: whatever a response's output holds, reading its
// client-executed tool_search_calls never panics; every call read is
// Quiver's tool_search, marked as the API's search, and, when no error is
// reported, carries arguments that are one JSON object.
func FuzzSearchCalls(f *testing.F) {
	f.Add(`{"output":[{"id":"tsc_01","type":"tool_search_call","call_id":"call_1","execution":"client","status":"completed","arguments":{"query":"web page"}}]}`)
	f.Add(`{"output":[{"type":"tool_search_call","call_id":"c","execution":"client","arguments":"{\"query\":\"x\"}"}]}`)
	f.Add(`{"output":[{"type":"tool_search_call","call_id":"c","execution":"server","arguments":{"query":"x"}}]}`)
	f.Add(`{"output":[{"type":"tool_search_call","call_id":"c","execution":"client","arguments":[1,2]}]}`)
	f.Add(`{"output":[{"type":"tool_search_call","execution":"client"}]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var r responses.Response
		if json.Unmarshal([]byte(raw), &r) != nil {
			return
		}
		calls, err := searchCalls(&r)
		for _, c := range calls {
			if c.Name != driver.ToolSearchName || c.Metadata[driver.MetaToolSearch] != "client" {
				t.Errorf("call %+v: not Quiver's tool_search marked as the API's", c)
			}
			if err != nil {
				continue
			}
			var obj map[string]any
			if json.Unmarshal(c.Arguments, &obj) != nil || obj == nil {
				t.Errorf("call %s: arguments %s are not one JSON object", c.ID, c.Arguments)
			}
		}
	})
}
