package drivertest

import (
	"fmt"
	"strings"
)

// GeminiSignature is the first Gemini turn's thought signature, as
// gemini-3-pro-preview sent it on its functionCall part (vercel/ai's
// google-tool-call recording, Apache-2.0; driver/testdata/streams/gemini).
const GeminiSignature = "EqUCCqICAb4+9vsh8Pd5taZVoPzSvjWWwzBrvhEQWBLCGa7IdY8FBMm7Z6dCKFU3Ft0la15gF7RaHe1NlPRygQec0bFwPDfMwGcUOMNiJiNIKxusCs4ejCZRuouNYQ4etEIt7CujEUHiILLfZXSJZYhs4UCrD2bLqPq0sE0lWgYJnzHkkKUOnMsA2hKffAhtF4DWn5INYj8pPssvch/2VpDFW2F9XSE04zLDzkIWF2eztJX50Y0lTehRZC3FW7fOrXCzGx+PwdataD6eXlF5O1zn+86XtmktOs2DEp4o1PMvXFFAXe8GGvPt8Idf3UtHMq7AsapwMW9sjiKj+FJk54m+9LMTSaj7C86smfvoQryYBEHTVazr1bEnpl4bPG5JUtm2yAMkHj4="

// GeminiThought is the first Gemini turn's thought summary.
const GeminiThought = "**Reading the list**\n\nThe answer is in the file; I will read it first."

const geminiErr = `{"error":{"code":400,"message":%s,"status":"INVALID_ARGUMENT"}}`

type geminiAPI struct{}

func (geminiAPI) answered(req map[string]any) bool {
	for _, c := range list(req, "contents") {
		if c["role"] == "model" {
			return true
		}
	}
	return false
}

// check: the functionCall part of the model turn carries the signature it
// was issued with. Positions count parts across the contents, as the API's
// message does.
func (geminiAPI) check(req map[string]any, _ []byte) string {
	pos := 0
	for _, c := range list(req, "contents") {
		for _, p := range list(c, "parts") {
			pos++
			fc, ok := p["functionCall"].(map[string]any)
			if !ok || c["role"] != "model" {
				continue
			}
			switch sig, _ := p["thoughtSignature"].(string); {
			case sig == "":
				return fmt.Sprintf(geminiErr, quote(fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%v` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", fc["name"], pos)))
			case sig != GeminiSignature:
				return fmt.Sprintf(geminiErr, quote("Corrupted thought signature."))
			}
		}
	}
	return ""
}

func (geminiAPI) first(w *reply, call Call) {
	thought := fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":%s,"thought":true}],"role":"model"},"index":0}],"modelVersion":"gemini-3-pro-preview","responseId":"b36LacjwM668nsEP2tbsgQQ"}`, quote(GeminiThought))
	fc := fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":%s,"args":%s},"thoughtSignature":%q}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":29,"candidatesTokenCount":15,"totalTokenCount":89,"thoughtsTokenCount":45},"modelVersion":"gemini-3-pro-preview","responseId":"b36LacjwM668nsEP2tbsgQQ"}`, quote(call.Name), call.Arguments, GeminiSignature)
	if !w.stream {
		w.whole(fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":%s,"thought":true},{"functionCall":{"name":%s,"args":%s},"thoughtSignature":%q}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":29,"candidatesTokenCount":15,"totalTokenCount":89,"thoughtsTokenCount":45},"modelVersion":"gemini-3-pro-preview","responseId":"b36LacjwM668nsEP2tbsgQQ"}`, quote(GeminiThought), quote(call.Name), call.Arguments, GeminiSignature))
		return
	}
	w.event("", thought)
	w.event("", fc)
}

func (geminiAPI) text(w *reply, text string, cut bool) {
	finish := "STOP"
	if cut {
		finish = "MAX_TOKENS"
	}
	whole := fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":%s}],"role":"model"},"finishReason":%q,"index":0}],"usageMetadata":{"promptTokenCount":120,"candidatesTokenCount":12,"totalTokenCount":132},"modelVersion":"gemini-3-pro-preview","responseId":"r2"}`, quote(text), finish)
	if !w.stream {
		w.whole(whole)
		return
	}
	words := strings.SplitAfter(text, " ")
	for _, c := range words[:len(words)-1] {
		w.event("", fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":%s}],"role":"model"},"index":0}],"modelVersion":"gemini-3-pro-preview","responseId":"r2"}`, quote(c)))
	}
	w.event("", fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":%s}],"role":"model"},"finishReason":%q,"index":0}],"usageMetadata":{"promptTokenCount":120,"candidatesTokenCount":12,"totalTokenCount":132},"modelVersion":"gemini-3-pro-preview","responseId":"r2"}`, quote(words[len(words)-1]), finish))
}
