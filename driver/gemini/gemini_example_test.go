package gemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/tool"
	"google.golang.org/genai"
)

type listIn struct {
	Dir  string   `json:"dir" jsonschema:"the directory"`
	Tags []string `json:"tags,omitempty" jsonschema:"tags to filter by"`
}

type listOut struct {
	Files []string `json:"files"`
}

// toolkit returns a Quiver toolkit serving one tool of the host's own, and
// what releases it.
func toolkit() (*quiver.Toolkit, func()) {
	list := tool.Func("list_reports", "List the reports in a directory.",
		func(ctx context.Context, tc tool.Context, in listIn) (listOut, error) {
			return listOut{Files: []string{in.Dir + "/q1.pdf", in.Dir + "/q2.pdf"}}, nil
		}, tool.ReadOnly())
	dir, _ := os.MkdirTemp("", "quiver-example")
	tk, err := quiver.New(quiver.WithRoot(dir), quiver.WithTools(list))
	if err != nil {
		panic(err)
	}
	return tk, func() { tk.Close(); os.RemoveAll(dir) }
}

// A program that already calls Gemini with the genai SDK hands the model's
// function calls to a Quiver toolkit and gets back the next turn: the model
// turn with its thought signature restored, and one user turn of
// functionResponse parts.
func Example() {
	ctx := context.Background()
	tk, done := toolkit()
	defer done()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []struct {
				FunctionDeclarations []struct {
					Name       string         `json:"name"`
					Parameters map[string]any `json:"parameters"`
				} `json:"functionDeclarations"`
			} `json:"tools"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &req)
		fd := req.Tools[0].FunctionDeclarations[0]
		params, _ := json.Marshal(fd.Parameters)
		fmt.Printf("offered %s with parameters %s\n", fd.Name, params)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"responseId":"r1","modelVersion":"gemini-3-pro","candidates":[{"finishReason":"STOP","content":{"role":"model","parts":[
			{"functionCall":{"name":"list_reports","args":{"dir":"reports"}},"thoughtSignature":"c2lnbmF0dXJl"}]}}]}`)
	}))
	defer srv.Close()
	client, _ := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "example", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})

	// Toolkit tools -> the SDK request: parameters in Gemini's own schema
	// dialect (no type arrays, no additionalProperties).
	tools, _ := tk.AllowedTools(ctx)
	decls, _ := gemini.Tools(driver.Definitions(tools, false))
	contents := []*genai.Content{genai.NewContentFromText("Which reports are there?", genai.RoleUser)}
	resp, err := client.Models.GenerateContent(ctx, "gemini-3-pro", contents, &genai.GenerateContentConfig{Tools: decls})
	if err != nil {
		panic(err)
	}

	// Function calls (Gemini sent no id: one is generated) -> InvokeCall -> the
	// next turn's contents.
	calls, _ := gemini.ToolCalls(resp)
	var results []driver.ToolResult
	for _, c := range calls {
		out, err := tk.InvokeCall(ctx, c)
		results = append(results, driver.ResultFor(c, out.Content, err))
	}
	modelTurn, _ := gemini.ModelTurn(driver.AssistantMessage("", calls...))
	toolTurn, _ := gemini.ToolResults(results)
	for _, c := range []*genai.Content{modelTurn, toolTurn} {
		b, _ := json.Marshal(c)
		fmt.Println(string(b))
	}
	// Output:
	// offered list_reports with parameters {"properties":{"dir":{"description":"the directory","type":"STRING"},"tags":{"description":"tags to filter by","items":{"type":"STRING"},"type":"ARRAY"}},"propertyOrdering":["dir","tags"],"required":["dir"],"type":"OBJECT"}
	// {"parts":[{"functionCall":{"args":{"dir":"reports"},"name":"list_reports"},"thoughtSignature":"c2lnbmF0dXJl"}],"role":"model"}
	// {"parts":[{"functionResponse":{"name":"list_reports","response":{"files":["reports/q1.pdf","reports/q2.pdf"]}}}],"role":"user"}
}
