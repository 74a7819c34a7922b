package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
)

// DefaultMaxTokens is sent when a Request leaves MaxTokens at 0: the
// Messages API requires a value.
const DefaultMaxTokens = 8192

// Tools converts definitions to custom tools. A parameters schema whose root
// is not an object is an error: input_schema must be one.
//
// A deferred definition is sent with defer_loading, and the tool search tool
// (BM25, tool_search_tool_bm25_20251119) comes after them: Anthropic
// searches the deferred tools itself and loads those it finds through
// tool_reference blocks, which [Response] keeps and [Assistant] sends back.
func Tools(defs []driver.ToolDefinition) ([]sdk.ToolUnionParam, error) {
	out := make([]sdk.ToolUnionParam, 0, len(defs)+1)
	for _, d := range defs {
		schema, err := InputSchema(d)
		if err != nil {
			return nil, err
		}
		t := &sdk.ToolParam{Name: d.Name, InputSchema: schema}
		if d.Description != "" {
			t.Description = param.NewOpt(d.Description)
		}
		if d.Deferred {
			t.DeferLoading = param.NewOpt(true)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: t})
	}
	if driver.HasDeferred(defs) {
		out = append(out, sdk.ToolUnionParam{OfToolSearchToolBm25_20251119: &sdk.ToolSearchToolBm25_20251119Param{
			Type: sdk.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119}})
	}
	return out, nil
}

// isSearchBlock reports the content blocks of Anthropic's tool search: kept raw
// in a turn's Reasoning (Raw set), in place, and sent back as they came, so
// that the tools they loaded stay loaded.
// Other server tools' blocks (web search, code execution) are not kept:
// Quiver does not send their results back, and a server_tool_use without
// its result would be refused.
func isSearchBlock(typ, name string) bool {
	return typ == "tool_search_tool_result" || (typ == "server_tool_use" && strings.HasPrefix(name, "tool_search_tool_"))
}

// rawBlock is a kept block of searchBlocks as a content block param.
func rawBlock(raw json.RawMessage) (sdk.ContentBlockParamUnion, bool) {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &head) != nil {
		return sdk.ContentBlockParamUnion{}, false
	}
	switch head.Type {
	case "server_tool_use":
		b := param.Override[sdk.ServerToolUseBlockParam](raw)
		return sdk.ContentBlockParamUnion{OfServerToolUse: &b}, true
	case "tool_search_tool_result":
		b := param.Override[sdk.ToolSearchToolResultBlockParam](raw)
		return sdk.ContentBlockParamUnion{OfToolSearchToolResult: &b}, true
	}
	return sdk.ContentBlockParamUnion{}, false
}

// InputSchema converts d's parameters to an input_schema: type object, the
// properties and required list in their fields, every other keyword as an
// extra field, unchanged.
func InputSchema(d driver.ToolDefinition) (sdk.ToolInputSchemaParam, error) {
	fields, err := driver.SchemaFields(d.Parameters)
	if err != nil {
		return sdk.ToolInputSchemaParam{}, fmt.Errorf("tool %q: %w", d.Name, err)
	}
	if t, ok := fields["type"]; ok && string(t) != `"object"` {
		return sdk.ToolInputSchemaParam{}, fmt.Errorf("tool %q: input_schema must have type object, has %s", d.Name, t)
	}
	var s sdk.ToolInputSchemaParam
	if p, ok := fields["properties"]; ok {
		s.Properties = p
	}
	if r, ok := fields["required"]; ok {
		if err := json.Unmarshal(r, &s.Required); err != nil {
			return s, fmt.Errorf("tool %q: required: %w", d.Name, err)
		}
	}
	for k, v := range fields {
		switch k {
		case "type", "properties", "required", "$schema", "$id":
			continue
		}
		if s.ExtraFields == nil {
			s.ExtraFields = make(map[string]any, len(fields))
		}
		s.ExtraFields[k] = v
	}
	return s, nil
}

// ToolChoice converts c. parallel, when it is false, forbids several calls in
// one turn (disable_parallel_tool_use), which Anthropic sets on the choice.
func ToolChoice(c driver.ToolChoice, parallel *bool) sdk.ToolChoiceUnionParam {
	disable := param.Opt[bool]{}
	if parallel != nil && !*parallel {
		disable = param.NewOpt(true)
	}
	switch c.Mode {
	case driver.ToolChoiceNone:
		return sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
	case driver.ToolChoiceRequired:
		return sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{DisableParallelToolUse: disable}}
	case driver.ToolChoiceTool:
		return sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{Name: c.Name, DisableParallelToolUse: disable}}
	case driver.ToolChoiceAuto:
		return sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{DisableParallelToolUse: disable}}
	}
	if disable.Valid() {
		return sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{DisableParallelToolUse: disable}}
	}
	return sdk.ToolChoiceUnionParam{}
}

// Messages converts a conversation: system messages to system blocks, the
// rest to messages, with the results of consecutive RoleTool messages
// gathered into one user message.
func Messages(msgs []driver.Message) ([]sdk.TextBlockParam, []sdk.MessageParam, error) {
	var system []sdk.TextBlockParam
	out := make([]sdk.MessageParam, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case driver.RoleSystem:
			system = append(system, sdk.TextBlockParam{Text: m.Text()})
		case driver.RoleUser:
			out = append(out, sdk.NewUserMessage(blocks(m.Parts)...))
		case driver.RoleAssistant:
			out = append(out, Assistant(m))
		case driver.RoleTool:
			results, next := driver.ToolTurns(msgs, i)
			out = append(out, ToolResults(results))
			i = next - 1
		default:
			return nil, nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return system, out, nil
}

func blocks(parts []tool.Part) []sdk.ContentBlockParamUnion {
	out := make([]sdk.ContentBlockParamUnion, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case tool.PartImage:
			out = append(out, sdk.NewImageBlockBase64(p.MIMEType, base64.StdEncoding.EncodeToString(p.Data)))
		case tool.PartJSON:
			out = append(out, sdk.NewTextBlock(string(p.JSON)))
		default:
			out = append(out, sdk.NewTextBlock(p.Text))
		}
	}
	return out
}

// Assistant converts an assistant turn in the order the model produced it:
// its thinking and redacted_thinking blocks (signature and data unchanged,
// which the API checks), its text, then one tool_use block per call. A call
// whose arguments did not parse is sent with {}.
func Assistant(m driver.Message) sdk.MessageParam {
	var content []sdk.ContentBlockParamUnion
	driver.Replay(m, driver.ReasoningAnthropic,
		func(r driver.Reasoning) {
			if r.Raw != nil {
				if b, ok := rawBlock(r.Raw); ok {
					content = append(content, b)
				}
				return
			}
			if !r.Redacted && r.Text == "" && r.Signature == "" {
				return // a search block whose input never settled
			}
			if r.Redacted {
				content = append(content, sdk.NewRedactedThinkingBlock(r.Data))
				return
			}
			content = append(content, sdk.NewThinkingBlock(r.Signature, r.Text))
		},
		func(text string) { content = append(content, sdk.NewTextBlock(text)) },
		func(c driver.ToolCall) {
			var input any = json.RawMessage("{}")
			if c.Arguments != nil {
				input = c.Arguments
			}
			b := sdk.NewToolUseBlock(c.ID, input, c.Name)
			setCaller(b.OfToolUse, c.Metadata)
			content = append(content, b)
		})
	return sdk.NewAssistantMessage(content...)
}

// ToolResults converts the results of one turn to the single user message of
// tool_result blocks Anthropic expects.
func ToolResults(results []driver.ToolResult) sdk.MessageParam {
	content := make([]sdk.ContentBlockParamUnion, 0, len(results))
	for _, r := range results {
		b := sdk.ToolResultBlockParam{ToolUseID: r.CallID, Content: resultContent(r.Content)}
		if r.IsError {
			b.IsError = param.NewOpt(true)
		}
		content = append(content, sdk.ContentBlockParamUnion{OfToolResult: &b})
	}
	return sdk.NewUserMessage(content...)
}

func resultContent(parts []tool.Part) []sdk.ToolResultBlockParamContentUnion {
	out := make([]sdk.ToolResultBlockParamContentUnion, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case tool.PartImage:
			out = append(out, sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{
				Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
					Data: base64.StdEncoding.EncodeToString(p.Data), MediaType: sdk.Base64ImageSourceMediaType(p.MIMEType),
				}},
			}})
		case tool.PartJSON:
			out = append(out, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: string(p.JSON)}})
		default:
			out = append(out, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: p.Text}})
		}
	}
	return out
}

// ToolCalls returns the tool_use blocks of a message as calls, and its
// server_tool_use blocks apart.
func ToolCalls(msg *sdk.Message) (calls, server []driver.ToolCall, err error) {
	var errs []error
	for _, b := range msg.Content {
		if b.Type != "tool_use" && b.Type != "server_tool_use" {
			continue
		}
		c := driver.ToolCall{ID: b.ID, Name: b.Name}
		c.Arguments, err = driver.ObjectArguments(b.ID, b.Name, b.Input)
		if err != nil {
			errs = append(errs, err)
		}
		c.Metadata = callerMeta(b.RawJSON())
		if b.Type == "server_tool_use" {
			server = append(server, c)
		} else {
			calls = append(calls, c)
		}
	}
	if err := driver.CheckIDs(calls, "toolu"); err != nil {
		errs = append(errs, err)
	}
	return calls, server, errors.Join(errs...)
}

// Response converts a whole message. Thinking and redacted_thinking blocks
// become the reply's Reasoning, placed among its calls as they came.
func Response(msg *sdk.Message) (*driver.Response, error) {
	if msg == nil {
		return nil, errors.New("nil message")
	}
	calls, server, err := ToolCalls(msg)
	resp := &driver.Response{
		ID:                 msg.ID,
		Model:              string(msg.Model),
		ToolCalls:          calls,
		ServerToolCalls:    server,
		StopReason:         stopReason(msg.StopReason),
		ProviderStopReason: string(msg.StopReason),
		Usage:              usage(msg.Usage.InputTokens, msg.Usage.OutputTokens, msg.Usage.CacheReadInputTokens),
	}
	resp.Usage.ReasoningTokens = msg.Usage.OutputTokensDetails.ThinkingTokens
	before := 0
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			resp.Text += b.Text
		case "tool_use":
			before++
		case "thinking":
			resp.Reasoning = append(resp.Reasoning, driver.Reasoning{Format: driver.ReasoningAnthropic, Text: b.Thinking, Signature: b.Signature, Before: before})
		case "redacted_thinking":
			resp.Reasoning = append(resp.Reasoning, driver.Reasoning{Format: driver.ReasoningAnthropic, Redacted: true, Data: b.Data, Before: before})
		default:
			if isSearchBlock(b.Type, b.Name) {
				resp.Reasoning = append(resp.Reasoning, driver.Reasoning{Format: driver.ReasoningAnthropic, Raw: json.RawMessage(b.RawJSON()), Before: before})
			}
		}
	}
	return resp, err
}

// Params builds the request for model.
func Params(model string, req driver.Request) (sdk.MessageNewParams, error) {
	system, msgs, err := Messages(req.Messages)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	tools, err := Tools(req.Tools)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	p := sdk.MessageNewParams{Model: model, MaxTokens: DefaultMaxTokens, System: system, Messages: msgs, Tools: tools}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if err := thinking(&p, req); err != nil {
		return sdk.MessageNewParams{}, err
	}
	if len(tools) > 0 {
		p.ToolChoice = ToolChoice(req.ToolChoice, req.ParallelToolCalls)
	}
	return p, nil
}

// MinThinkingBudget is the smallest thinking budget the Messages API takes.
const MinThinkingBudget = 1024

// thinking turns on extended thinking when the request sets a budget. The
// budget must be below max_tokens; a request that left MaxTokens at 0 gets
// the budget plus DefaultMaxTokens, so the answer keeps its usual room.
func thinking(p *sdk.MessageNewParams, req driver.Request) error {
	budget := int64(req.Reasoning.BudgetTokens)
	if budget <= 0 {
		return nil
	}
	if budget < MinThinkingBudget {
		return fmt.Errorf("thinking budget %d: the Messages API takes at least %d", budget, MinThinkingBudget)
	}
	if req.MaxTokens == 0 {
		p.MaxTokens = budget + DefaultMaxTokens
	}
	if budget >= p.MaxTokens {
		return fmt.Errorf("thinking budget %d must be below max tokens %d", budget, p.MaxTokens)
	}
	p.Thinking = sdk.ThinkingConfigParamOfEnabled(budget)
	return nil
}

func stopReason(r sdk.StopReason) driver.StopReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return driver.StopEnd
	case sdk.StopReasonToolUse:
		return driver.StopToolCalls
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return driver.StopLength
	case sdk.StopReasonRefusal:
		return driver.StopContentFilter
	}
	return driver.StopOther
}

func usage(in, out, cacheRead int64) driver.Usage {
	return driver.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: cacheRead, TotalTokens: in + out}
}

// callerMeta keeps who made a call when it was not the model directly (code
// execution calling a tool), so that the replayed tool_use says so too. The
// SDK's block union has no caller field; the block's raw JSON does.
func callerMeta(block string) map[string]string {
	if !strings.Contains(block, `"caller"`) {
		return nil
	}
	var b struct {
		Caller struct {
			Type   string `json:"type"`
			ToolID string `json:"tool_id"`
		} `json:"caller"`
	}
	if json.Unmarshal([]byte(block), &b) != nil || b.Caller.Type == "" || b.Caller.Type == "direct" {
		return nil
	}
	return map[string]string{driver.MetaCallerType: b.Caller.Type, driver.MetaCallerID: b.Caller.ToolID}
}

func setCaller(b *sdk.ToolUseBlockParam, meta map[string]string) {
	switch meta[driver.MetaCallerType] {
	case "code_execution_20250825":
		b.Caller.OfCodeExecution20250825 = &sdk.ServerToolCallerParam{ToolID: meta[driver.MetaCallerID]}
	case "code_execution_20260120":
		b.Caller.OfCodeExecution20260120 = &sdk.ServerToolCaller20260120Param{ToolID: meta[driver.MetaCallerID]}
	}
}
