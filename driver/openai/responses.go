package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
)

// ResponsesTools converts definitions to Responses API function tools.
// Deferred definitions go into one namespace ([DeferredNamespace]) with
// defer_loading, and a client-executed tool_search comes last: the model
// sees the namespace's name and description, searches, and Quiver answers
// the tool_search_call with the tools found ([ResponsesToolResults]).
func ResponsesTools(defs []driver.ToolDefinition) ([]responses.ToolUnionParam, error) {
	out := make([]responses.ToolUnionParam, 0, len(defs))
	var deferred []responses.NamespaceToolToolUnionParam
	var names []string
	for _, d := range defs {
		fn, err := responsesFunction(d)
		if err != nil {
			return nil, err
		}
		if d.Deferred {
			nf := &responses.NamespaceToolToolFunctionParam{Name: fn.Name, Description: fn.Description,
				Parameters: fn.Parameters, Strict: fn.Strict, DeferLoading: param.NewOpt(true)}
			deferred = append(deferred, responses.NamespaceToolToolUnionParam{OfFunction: nf})
			names = append(names, d.Name)
			continue
		}
		out = append(out, responses.ToolUnionParam{OfFunction: fn})
	}
	if len(deferred) == 0 {
		return out, nil
	}
	search := driver.ToolSearchDefinition(names)
	params, _, err := parameters(search)
	if err != nil {
		return nil, err
	}
	out = append(out,
		responses.ToolUnionParam{OfNamespace: &responses.NamespaceToolParam{Name: DeferredNamespace,
			Description: deferredNamespaceDescription, Tools: deferred}},
		responses.ToolUnionParam{OfToolSearch: &responses.ToolSearchToolParam{Execution: responses.ToolSearchToolExecutionClient,
			Description: param.NewOpt(search.Description), Parameters: params}})
	return out, nil
}

// DeferredNamespace is the namespace deferred tools are sent in.
const DeferredNamespace = "more_tools"

// deferredNamespaceDescription describes the namespace, both where it is
// declared and where tool_search_output loads its functions. The tools'
// names are in tool_search's description, not repeated here.
const deferredNamespaceDescription = "Tools loaded on demand: find them with tool_search."

func responsesFunction(d driver.ToolDefinition) (*responses.FunctionToolParam, error) {
	params, strict, err := parameters(d)
	if err != nil {
		return nil, err
	}
	fn := &responses.FunctionToolParam{Name: d.Name, Parameters: params, Strict: param.NewOpt(strict)}
	if d.Description != "" {
		fn.Description = param.NewOpt(d.Description)
	}
	return fn, nil
}

// ResponsesToolChoice converts c; the zero choice gives the zero (omitted)
// param.
func ResponsesToolChoice(c driver.ToolChoice) responses.ResponseNewParamsToolChoiceUnion {
	switch c.Mode {
	case driver.ToolChoiceAuto, driver.ToolChoiceNone, driver.ToolChoiceRequired:
		return responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptions(c.Mode))}
	case driver.ToolChoiceTool:
		return responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: c.Name}}
	}
	return responses.ResponseNewParamsToolChoiceUnion{}
}

// ResponsesInput converts a conversation to input items: messages,
// function_call items for the assistant's calls, function_call_output items
// for results.
func ResponsesInput(msgs []driver.Message) (responses.ResponseInputParam, error) {
	out := make(responses.ResponseInputParam, 0, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case driver.RoleSystem:
			out = append(out, responses.ResponseInputItemParamOfMessage(m.Text(), responses.EasyInputMessageRoleSystem))
		case driver.RoleUser:
			out = append(out, responsesUser(m.Parts))
		case driver.RoleAssistant:
			out = append(out, ResponsesAssistant(m)...)
		case driver.RoleTool:
			out = append(out, ResponsesToolResults(m.ToolResults)...)
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

func responsesUser(parts []tool.Part) responses.ResponseInputItemUnionParam {
	if len(parts) == 1 && parts[0].Type == tool.PartText {
		return responses.ResponseInputItemParamOfMessage(parts[0].Text, responses.EasyInputMessageRoleUser)
	}
	content := make(responses.ResponseInputMessageContentListParam, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case tool.PartImage:
			img := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailAuto)
			img.OfInputImage.ImageURL = param.NewOpt(dataURL(p))
			content = append(content, img)
		case tool.PartJSON:
			content = append(content, responses.ResponseInputContentParamOfInputText(string(p.JSON)))
		default:
			content = append(content, responses.ResponseInputContentParamOfInputText(p.Text))
		}
	}
	return responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser)
}

// ResponsesAssistant converts an assistant turn in the order the model
// produced it: each reasoning item exactly as it arrived (id, summary,
// encrypted_content), the text as an assistant message, and one
// function_call item per call. A call keeps its fc_... item id only when the
// turn kept its reasoning items: the API refuses a function_call item whose
// reasoning item is missing, and takes one without an id.
func ResponsesAssistant(m driver.Message) []responses.ResponseInputItemUnionParam {
	var out []responses.ResponseInputItemUnionParam
	reasoned := false
	for _, r := range m.Reasoning {
		reasoned = reasoned || (r.Format == driver.ReasoningResponses && len(r.Raw) > 0)
	}
	driver.Replay(m, driver.ReasoningResponses,
		func(r driver.Reasoning) {
			if len(r.Raw) == 0 {
				return
			}
			item := param.Override[responses.ResponseReasoningItemParam](json.RawMessage(r.Raw))
			out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: &item})
		},
		func(text string) {
			out = append(out, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleAssistant))
		},
		func(c driver.ToolCall) {
			if c.Metadata[driver.MetaToolSearch] != "" {
				out = append(out, responses.ResponseInputItemUnionParam{OfToolSearchCall: &responses.ResponseInputItemToolSearchCallParam{
					Arguments: json.RawMessage(argumentsText(c)), CallID: param.NewOpt(c.ID), Execution: "client", Status: "completed"}})
				return
			}
			item := responses.ResponseInputItemParamOfFunctionCall(argumentsText(c), c.ID, c.Name)
			if ns := c.Metadata[MetaNamespace]; ns != "" {
				item.OfFunctionCall.Namespace = param.NewOpt(ns)
			}
			if id := c.Metadata[driver.MetaItemID]; id != "" && reasoned {
				item.OfFunctionCall.ID = param.NewOpt(id)
			}
			if c.Metadata[driver.MetaCallerType] == "program" {
				item.OfFunctionCall.Caller.OfProgram = &responses.ResponseFunctionToolCallCallerProgramParam{CallerID: c.Metadata[driver.MetaCallerID]}
			}
			out = append(out, item)
		})
	return out
}

// ResponsesToolResults converts results to function_call_output items, keyed
// by call_id. Text-only results are sent as a string; results with images as
// a list of input_text and input_image items.
func ResponsesToolResults(results []driver.ToolResult) []responses.ResponseInputItemUnionParam {
	out := make([]responses.ResponseInputItemUnionParam, 0, len(results))
	for _, r := range results {
		if r.Metadata[driver.MetaToolSearch] != "" {
			out = append(out, toolSearchOutput(r))
			continue
		}
		var item responses.ResponseInputItemUnionParam
		if !r.HasImages() {
			item = responses.ResponseInputItemParamOfFunctionCallOutput(r.Text())
		} else {
			item = responses.ResponseInputItemParamOfFunctionCallOutput(outputItems(r.Content))
		}
		o := item.OfFunctionCallOutput
		o.CallID = param.NewOpt(r.CallID)
		if r.Metadata[driver.MetaCallerType] == "program" {
			o.Caller.OfProgram = &responses.ResponseInputItemFunctionCallOutputCallerProgramParam{CallerID: r.Metadata[driver.MetaCallerID]}
		}
		out = append(out, item)
	}
	return out
}

// toolSearchOutput answers a client-executed tool_search_call with the
// functions the search found (the driver.ToolSearchResult of r's JSON
// part), loaded the way they were declared: in DeferredNamespace, each with
// defer_loading, as the API's own search answers for a namespace (and as
// Codex answers its client-executed searches), so that the model calls
// them in the namespace. A failed search loads nothing; the model sees
// that it found none.
func toolSearchOutput(r driver.ToolResult) responses.ResponseInputItemUnionParam {
	o := &responses.ResponseToolSearchOutputItemParam{CallID: param.NewOpt(r.CallID),
		Execution: responses.ResponseToolSearchOutputItemParamExecutionClient,
		Status:    responses.ResponseToolSearchOutputItemParamStatusCompleted,
		Tools:     []responses.ResponseToolSearchOutputItemParamToolUnion{}}
	ns := &responses.ToolSearchOutputNamespaceToolParam{Name: DeferredNamespace, Description: deferredNamespaceDescription}
	for _, p := range r.Content {
		var found driver.ToolSearchResult
		if p.Type != tool.PartJSON || json.Unmarshal(p.JSON, &found) != nil {
			continue
		}
		for _, d := range found.Tools {
			fn, err := responsesFunction(d)
			if err != nil {
				continue
			}
			ns.Tools = append(ns.Tools, responses.ToolSearchOutputNamespaceToolToolUnionParam{OfFunction: &responses.ToolSearchOutputNamespaceToolToolFunctionParam{
				Name: fn.Name, Description: fn.Description, Parameters: fn.Parameters, Strict: fn.Strict, DeferLoading: param.NewOpt(true)}})
		}
	}
	if len(ns.Tools) > 0 {
		o.Tools = append(o.Tools, responses.ResponseToolSearchOutputItemParamToolUnion{OfNamespace: ns})
	}
	return responses.ResponseInputItemUnionParam{OfToolSearchOutput: o}
}

// MetaNamespace is the namespace of a Responses function call made inside
// one (the deferred tools'), sent back with it.
const MetaNamespace = "namespace"

// searchCalls are a response's client-executed tool_search_call items, as
// calls of driver.ToolSearchName marked with driver.MetaToolSearch.
func searchCalls(r *responses.Response) ([]driver.ToolCall, error) {
	var out []driver.ToolCall
	var errs []error
	for _, item := range r.Output {
		if item.Type != "tool_search_call" || item.Execution != "client" {
			continue
		}
		var raw struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(item.RawJSON()), &raw); err != nil {
			errs = append(errs, fmt.Errorf("tool_search_call %s: %w", item.CallID, err))
			continue
		}
		c := driver.ToolCall{ID: item.CallID, Name: driver.ToolSearchName,
			Metadata: map[string]string{driver.MetaToolSearch: "client"}}
		var err error
		if c.Arguments, err = driver.ObjectArguments(c.ID, c.Name, raw.Arguments); err != nil {
			errs = append(errs, err)
		}
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

func outputItems(parts []tool.Part) responses.ResponseFunctionCallOutputItemListParam {
	items := make(responses.ResponseFunctionCallOutputItemListParam, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case tool.PartImage:
			items = append(items, responses.ResponseFunctionCallOutputItemUnionParam{
				OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: param.NewOpt(dataURL(p))},
			})
		case tool.PartJSON:
			items = append(items, responses.ResponseFunctionCallOutputItemParamOfInputText(string(p.JSON)))
		default:
			items = append(items, responses.ResponseFunctionCallOutputItemParamOfInputText(p.Text))
		}
	}
	return items
}

// ResponsesReasoning returns the reasoning items of a response, each kept
// whole as the API sent it, placed among the calls as they came.
func ResponsesReasoning(r *responses.Response) []driver.Reasoning {
	var out []driver.Reasoning
	calls := 0
	for _, item := range r.Output {
		switch item.Type {
		case "function_call":
			calls++
		case "reasoning":
			out = append(out, responsesReasoning(item, calls))
		}
	}
	return out
}

func responsesReasoning(item responses.ResponseOutputItemUnion, before int) driver.Reasoning {
	var text string
	for _, s := range item.Summary {
		if text != "" {
			text += "\n\n"
		}
		text += s.Text
	}
	return driver.Reasoning{Format: driver.ReasoningResponses, Text: text, Raw: json.RawMessage(item.RawJSON()), Before: before}
}

// ResponsesToolCalls returns the function_call items of a response. The
// call's id is its call_id; the fc_... item id is kept in Metadata.
func ResponsesToolCalls(r *responses.Response) ([]driver.ToolCall, error) {
	var calls []driver.ToolCall
	var errs []error
	for _, item := range r.Output {
		if item.Type != "function_call" {
			continue
		}
		c, err := responsesCall(item, item.Arguments.OfString)
		if err != nil {
			errs = append(errs, err)
		}
		calls = append(calls, c)
	}
	search, err := searchCalls(r)
	calls = append(calls, search...)
	errs = append(errs, err)
	if err := driver.CheckIDs(calls, "call"); err != nil {
		errs = append(errs, err)
	}
	return calls, errors.Join(errs...)
}

func responsesCall(item responses.ResponseOutputItemUnion, args string) (driver.ToolCall, error) {
	c := driver.ToolCall{ID: item.CallID, Name: item.Name}
	if item.ID != "" {
		c.Metadata = driver.WithMeta(c.Metadata, driver.MetaItemID, item.ID)
	}
	if item.Namespace != "" {
		c.Metadata = driver.WithMeta(c.Metadata, MetaNamespace, item.Namespace)
	}
	if t := item.Caller.Type; t != "" && t != "direct" {
		c.Metadata = driver.WithMeta(c.Metadata, driver.MetaCallerType, t)
		c.Metadata = driver.WithMeta(c.Metadata, driver.MetaCallerID, item.Caller.CallerID)
	}
	var err error
	c.Arguments, err = driver.ParseArguments(c.ID, c.Name, args)
	return c, err
}

// ResponsesResponse converts a whole response. A failed response is an
// error carrying the API's message.
func ResponsesResponse(r *responses.Response) (*driver.Response, error) {
	if r == nil {
		return nil, errors.New("nil response")
	}
	if r.Status == "failed" {
		return nil, fmt.Errorf("response %s failed: %s: %s", r.ID, r.Error.Code, r.Error.Message)
	}
	calls, err := ResponsesToolCalls(r)
	resp := &driver.Response{
		ID:        r.ID,
		Model:     string(r.Model),
		Text:      r.OutputText(),
		Reasoning: ResponsesReasoning(r),
		ToolCalls: calls,
		Usage:     responsesUsage(r.Usage),
	}
	resp.StopReason, resp.ProviderStopReason = responsesStop(r, len(calls) > 0)
	return resp, err
}

// ResponsesParams builds the request for model.
func ResponsesParams(model string, req driver.Request) (responses.ResponseNewParams, error) {
	input, err := ResponsesInput(req.Messages)
	if err != nil {
		return responses.ResponseNewParams{}, err
	}
	tools, err := ResponsesTools(req.Tools)
	if err != nil {
		return responses.ResponseNewParams{}, err
	}
	p := responses.ResponseNewParams{
		Model:      model,
		Input:      responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Tools:      tools,
		ToolChoice: ResponsesToolChoice(req.ToolChoice),
	}
	if req.ParallelToolCalls != nil && len(tools) > 0 {
		p.ParallelToolCalls = param.NewOpt(*req.ParallelToolCalls)
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if e := req.Reasoning.Effort; e != "" {
		p.Reasoning.Effort = shared.ReasoningEffort(e)
	}
	if e := req.Reasoning.Effort; e != "" || IsReasoningModel(model) {
		// Stateless: nothing is stored, so each reasoning item must carry
		// its encrypted content to be sent back.
		p.Store = param.NewOpt(false)
		p.Include = append(p.Include, responses.ResponseIncludableReasoningEncryptedContent)
	}
	return p, nil
}

// IsReasoningModel reports whether OpenAI's model name is one of its
// reasoning models (the o-series, gpt-5 and later, codex), which keep their
// reasoning between turns only on the Responses API.
func IsReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return strings.Contains(model, "codex")
}

func responsesStop(r *responses.Response, calls bool) (driver.StopReason, string) {
	switch {
	case r.Status == "incomplete" && r.IncompleteDetails.Reason == "max_output_tokens":
		return driver.StopLength, r.IncompleteDetails.Reason
	case r.Status == "incomplete" && r.IncompleteDetails.Reason == "content_filter":
		return driver.StopContentFilter, r.IncompleteDetails.Reason
	case r.Status == "incomplete":
		return driver.StopOther, r.IncompleteDetails.Reason
	case calls:
		return driver.StopToolCalls, string(r.Status)
	}
	return driver.StopEnd, string(r.Status)
}

func responsesUsage(u responses.ResponseUsage) driver.Usage {
	return driver.Usage{
		InputTokens:     u.InputTokens,
		OutputTokens:    u.OutputTokens,
		CacheReadTokens: u.InputTokensDetails.CachedTokens,
		ReasoningTokens: u.OutputTokensDetails.ReasoningTokens,
		TotalTokens:     u.TotalTokens,
	}
}
