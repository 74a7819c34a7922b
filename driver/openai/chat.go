package openai

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
)

// ChatTools converts definitions to Chat Completions function tools. Chat
// Completions has no deferral: deferred definitions are left out and
// Quiver's tool_search offered in their place (driver.UpFront).
func ChatTools(defs []driver.ToolDefinition) ([]oai.ChatCompletionToolUnionParam, error) {
	defs = driver.UpFront(defs)
	out := make([]oai.ChatCompletionToolUnionParam, 0, len(defs))
	for _, d := range defs {
		params, strict, err := parameters(d)
		if err != nil {
			return nil, err
		}
		fn := shared.FunctionDefinitionParam{Name: d.Name, Parameters: params}
		if d.Description != "" {
			fn.Description = param.NewOpt(d.Description)
		}
		if strict {
			fn.Strict = param.NewOpt(true)
		}
		out = append(out, oai.ChatCompletionFunctionTool(fn))
	}
	return out, nil
}

// ChatToolChoice converts c; the zero choice gives the zero (omitted) param.
func ChatToolChoice(c driver.ToolChoice) oai.ChatCompletionToolChoiceOptionUnionParam {
	switch c.Mode {
	case driver.ToolChoiceAuto, driver.ToolChoiceNone, driver.ToolChoiceRequired:
		return oai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: param.NewOpt(string(c.Mode))}
	case driver.ToolChoiceTool:
		return oai.ToolChoiceOptionFunctionToolChoice(oai.ChatCompletionNamedToolChoiceFunctionParam{Name: c.Name})
	}
	return oai.ChatCompletionToolChoiceOptionUnionParam{}
}

// ChatMessages converts a conversation. Each RoleTool message becomes one
// tool message per result (see [ChatToolResults]).
func ChatMessages(msgs []driver.Message) ([]oai.ChatCompletionMessageParamUnion, error) {
	out := make([]oai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case driver.RoleSystem:
			out = append(out, oai.SystemMessage(m.Text()))
		case driver.RoleUser:
			out = append(out, chatUser(m.Parts))
		case driver.RoleAssistant:
			out = append(out, ChatAssistant(m))
		case driver.RoleTool:
			results, next := driver.ToolTurns(msgs, i)
			out = append(out, ChatToolResults(results)...)
			i = next - 1
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

func chatUser(parts []tool.Part) oai.ChatCompletionMessageParamUnion {
	if len(parts) == 1 && parts[0].Type == tool.PartText {
		return oai.UserMessage(parts[0].Text)
	}
	content := make([]oai.ChatCompletionContentPartUnionParam, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case tool.PartImage:
			content = append(content, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(p)}))
		case tool.PartJSON:
			content = append(content, oai.TextContentPart(string(p.JSON)))
		default:
			content = append(content, oai.TextContentPart(p.Text))
		}
	}
	return oai.UserMessage(content)
}

// ChatAssistant converts an assistant turn, with its tool calls, for the
// next request. A call whose arguments did not parse is sent with {}.
func ChatAssistant(m driver.Message) oai.ChatCompletionMessageParamUnion {
	var a oai.ChatCompletionAssistantMessageParam
	if text := m.Text(); text != "" || len(m.ToolCalls) == 0 {
		a.Content.OfString = param.NewOpt(text)
	}
	if len(m.ToolCalls) > 0 {
		if r, ok := chatReasoning(m); ok {
			a.SetExtraFields(map[string]any{"reasoning_content": r})
		}
	}
	for _, c := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
				ID:       c.ID,
				Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: argumentsText(c)},
			},
		})
	}
	return oai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// chatReasoning is the reasoning_content a server sent with m, if it sent
// any (an empty one included: DeepSeek wants the field back even then).
func chatReasoning(m driver.Message) (string, bool) {
	var text string
	found := false
	for _, r := range m.Reasoning {
		if r.Format == driver.ReasoningChat {
			text += r.Text
			found = true
		}
	}
	return text, found
}

// reasoningContent reads the reasoning_content extension field (DeepSeek,
// xAI, vLLM), which the SDK's types do not name.
func reasoningContent(extra map[string]respjson.Field) (string, bool) {
	// The SDK marks an extension field it has no type for as not Valid; its
	// raw JSON is all there is to read.
	f, ok := extra["reasoning_content"]
	if !ok || f.Raw() == "" || f.Raw() == respjson.Null {
		return "", false
	}
	var s string
	if json.Unmarshal([]byte(f.Raw()), &s) != nil {
		return "", false
	}
	return s, true
}

// ChatToolResults converts results to tool messages, one per result, in
// order. Chat Completions takes only text from a tool: an image is named in
// the text, and the images of all results follow in one user message.
func ChatToolResults(results []driver.ToolResult) []oai.ChatCompletionMessageParamUnion {
	out := make([]oai.ChatCompletionMessageParamUnion, 0, len(results)+1)
	var images []oai.ChatCompletionContentPartUnionParam
	for _, r := range results {
		text := r.Text()
		if r.HasImages() {
			text += "\n(the images of this result follow in the next user message)"
			images = append(images, oai.TextContentPart("Images returned by tool call "+r.CallID+" ("+r.Name+"):"))
			for _, p := range r.Content {
				if p.Type == tool.PartImage {
					images = append(images, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(p)}))
				}
			}
		}
		out = append(out, oai.ToolMessage(text, r.CallID))
	}
	if len(images) > 0 {
		out = append(out, oai.UserMessage(images))
	}
	return out
}

// ChatToolCalls returns the function calls of a Chat Completions message.
// Calls whose arguments do not parse come back with nil Arguments and a
// *driver.CallError for each (joined).
func ChatToolCalls(msg oai.ChatCompletionMessage) ([]driver.ToolCall, error) {
	var calls []driver.ToolCall
	var errs []error
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom (grammar) tools are not offered by this driver
		}
		args, err := driver.ParseArguments(tc.ID, tc.Function.Name, tc.Function.Arguments)
		if err != nil {
			errs = append(errs, err)
		}
		calls = append(calls, driver.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	if err := driver.CheckIDs(calls, "call"); err != nil {
		errs = append(errs, err)
	}
	return calls, errors.Join(errs...)
}

// ChatResponse converts a whole Chat Completions reply (its first choice).
func ChatResponse(c *oai.ChatCompletion) (*driver.Response, error) {
	if c == nil || len(c.Choices) == 0 {
		return nil, errors.New("chat completion has no choices")
	}
	ch := c.Choices[0]
	calls, err := ChatToolCalls(ch.Message)
	resp := &driver.Response{
		ID:                 c.ID,
		Model:              c.Model,
		Text:               ch.Message.Content,
		ToolCalls:          calls,
		StopReason:         chatStop(ch.FinishReason),
		ProviderStopReason: ch.FinishReason,
		Usage:              chatUsage(c.Usage),
	}
	if r, ok := reasoningContent(ch.Message.JSON.ExtraFields); ok {
		resp.Reasoning = []driver.Reasoning{{Format: driver.ReasoningChat, Text: r}}
	}
	return resp, err
}

// ChatParams builds the request for model: messages, tools, tool choice,
// parallel_tool_calls (sent only with tools, as the API requires) and the
// token cap.
func ChatParams(model string, req driver.Request) (oai.ChatCompletionNewParams, error) {
	msgs, err := ChatMessages(req.Messages)
	if err != nil {
		return oai.ChatCompletionNewParams{}, err
	}
	tools, err := ChatTools(req.Tools)
	if err != nil {
		return oai.ChatCompletionNewParams{}, err
	}
	p := oai.ChatCompletionNewParams{Model: model, Messages: msgs, Tools: tools, ToolChoice: ChatToolChoice(req.ToolChoice)}
	if req.ParallelToolCalls != nil && len(tools) > 0 {
		p.ParallelToolCalls = param.NewOpt(*req.ParallelToolCalls)
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if e := req.Reasoning.Effort; e != "" {
		p.ReasoningEffort = shared.ReasoningEffort(e)
	}
	return p, nil
}

func chatStop(reason string) driver.StopReason {
	switch reason {
	case "stop":
		return driver.StopEnd
	case "tool_calls", "function_call":
		return driver.StopToolCalls
	case "length":
		return driver.StopLength
	case "content_filter":
		return driver.StopContentFilter
	}
	return driver.StopOther
}

func chatUsage(u oai.CompletionUsage) driver.Usage {
	return driver.Usage{
		InputTokens:     u.PromptTokens,
		OutputTokens:    u.CompletionTokens,
		CacheReadTokens: u.PromptTokensDetails.CachedTokens,
		ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens,
		TotalTokens:     u.TotalTokens,
	}
}

// argumentsText is what an assistant turn replays for c's arguments: {} for
// a call whose arguments did not parse (its error result tells the model).
func argumentsText(c driver.ToolCall) string {
	if c.Arguments == nil {
		return "{}"
	}
	return string(c.Arguments)
}

func dataURL(p tool.Part) string {
	return "data:" + p.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}
