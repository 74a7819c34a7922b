package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrNoJSON is the cause of [ExtractJSON]'s error when a text holds no JSON
// object or array.
var ErrNoJSON = errors.New("the answer holds no JSON object or array")

// maxJSONAnswer bounds the bytes of an answer [ExtractJSON] reads.
const maxJSONAnswer = 4 << 20

// ExtractJSON cuts a final answer that must be JSON down to its JSON value,
// for models that wrap it in prose or a code fence. The rule, in order:
//
//  1. The whole answer, trimmed of white space, is one JSON value: it is
//     the answer (a bare number or string included).
//  2. Otherwise the first fenced code block (``` or ~~~, any info string
//     such as "json") whose content is one JSON value is the answer.
//  3. Otherwise the first '{' or '[' in the text that starts a complete
//     JSON object or array is the answer; the text after that value is
//     dropped.
//
// So when the answer holds several objects, the first one wins: models put
// the answer first and then explain it, or show alternatives after it. A
// model that writes an example before its answer should be asked for JSON
// only; the same goes for a bracketed citation such as "[1]" in prose
// before the answer, which is itself a JSON array. The value is returned as the model wrote it, not re-encoded. An
// answer with no JSON object or array is an error wrapping [ErrNoJSON].
func ExtractJSON(answer string) (json.RawMessage, error) {
	text := strings.TrimSpace(answer)
	if len(text) > maxJSONAnswer {
		text = text[:maxJSONAnswer]
	}
	if json.Valid([]byte(text)) {
		return json.RawMessage(text), nil
	}
	for _, block := range fencedBlocks(text) {
		if b := bytes.TrimSpace([]byte(block)); len(b) > 0 && json.Valid(b) {
			return json.RawMessage(b), nil
		}
	}
	if v, ok := firstJSONValue(text); ok {
		return v, nil
	}
	return nil, fmt.Errorf("cutting the answer to JSON: %w (it begins %q)", ErrNoJSON, preview(text))
}

// fencedBlocks returns the contents of text's fenced code blocks, in order.
// A fence is a line that starts with three or more backticks or tildes; the
// block ends at a line that starts with the same run of the same
// character, or at the end of the text.
func fencedBlocks(text string) []string {
	var blocks []string
	var fence string
	var body strings.Builder
	for line := range strings.Lines(text) {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence == "":
			if f := fenceOf(trimmed); f != "" {
				fence = f
				body.Reset()
			}
		case strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "":
			blocks = append(blocks, body.String())
			fence = ""
		default:
			body.WriteString(line)
		}
	}
	if fence != "" {
		blocks = append(blocks, body.String()) // a reply cut off inside its fence
	}
	return blocks
}

// fenceOf returns the fence a line opens ("```", "~~~~"...), or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// firstJSONValue finds the first '{' or '[' of text that starts a complete
// JSON object or array, and returns that value. A start that fails is
// skipped up to the byte where it failed, so the values inside a broken
// one ({"a": {"b": 1} oops) are not taken for the answer, and the search
// reads each byte about once.
func firstJSONValue(text string) (json.RawMessage, bool) {
	for i := 0; i < len(text); i++ {
		if text[i] != '{' && text[i] != '[' || !canOpen(text[i], text[i+1:]) {
			continue
		}
		var v json.RawMessage
		err := json.NewDecoder(strings.NewReader(text[i:])).Decode(&v)
		if err == nil {
			return v, true
		}
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return nil, false // the text ends inside this value
		}
		i += max(int(se.Offset)-2, 0) // on to the byte that failed: it may start the answer
	}
	return nil, false
}

// canOpen reports whether the byte after an opening brace or bracket (past
// white space) can follow it in JSON: a cheap test that spares the decoder
// most braces of prose ("{curly}", "{{{").
func canOpen(open byte, rest string) bool {
	rest = strings.TrimLeft(rest, " \t\r\n")
	if rest == "" {
		return false
	}
	if open == '{' {
		return rest[0] == '"' || rest[0] == '}'
	}
	return strings.IndexByte("]{[\"-0123456789tfn", rest[0]) >= 0
}

// preview is the start of an answer, for an error message.
func preview(text string) string {
	const n = 80
	if len(text) > n {
		return text[:n] + "..."
	}
	return text
}

// cutToJSON applies Config.JSONAnswer to a run's final answer.
func cutToJSON(res *Result) error {
	v, err := ExtractJSON(res.Text)
	if err != nil {
		return fmt.Errorf("agent: turn %d: the answer must be JSON: %w", res.Turns, err)
	}
	res.Text = string(v)
	return nil
}
