// Package streamtest replays recorded model streams to the official SDK
// clients over real HTTP, for the driver packages' tests.
//
// Fixtures live in driver/testdata/streams (see its README), or in the
// directory named by QUIVER_STREAM_FIXTURES, laid out the same way: one folder
// per API (openai-chat, openai-responses, anthropic, gemini) holding NAME.jsonl
// or NAME.sse beside NAME.expected.json. Each provider's framing (the bytes
// its server sends around every payload) is rebuilt here, so the SDK client
// parses exactly what it would parse from the provider.
package streamtest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/driver"
)

// EnvDir names the environment variable that points the fixture tests at
// another directory of recordings.
const EnvDir = "QUIVER_STREAM_FIXTURES"

// Fixture is one recorded stream and what it encodes.
type Fixture struct {
	API      string   // the folder: openai-chat, openai-responses, anthropic, gemini
	Name     string   // the file name without extension
	Raw      []byte   // the recording as stored
	SSE      bool     // Raw is an SSE byte stream (.sse) rather than one payload a line
	Payloads [][]byte // the JSON payloads, one per event, in order
	Expected Expected
}

// Expected is NAME.expected.json.
type Expected struct {
	ToolCalls       []ExpectedCall      `json:"tool_calls"`
	Text            string              `json:"text"`
	ServerToolCalls []ExpectedCall      `json:"server_tool_calls"`
	Reasoning       []ExpectedReasoning `json:"reasoning"`
}

// ExpectedCall is one call of Expected; ID is nil when the provider sent none.
type ExpectedCall struct {
	ID        *string         `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// ThoughtSignature, when set, is the Gemini signature the call carries.
	ThoughtSignature string `json:"thought_signature"`
}

// ExpectedReasoning is one piece of a reply's reasoning, in order: its
// readable text, its signature (Anthropic, Gemini), and the encrypted
// content its raw item must carry unchanged (Responses).
type ExpectedReasoning struct {
	Text             string `json:"text"`
	Signature        string `json:"signature"`
	EncryptedContent string `json:"encrypted_content"`
	// RawType is the type of a block kept raw to be sent back as it came
	// (Anthropic's server_tool_use and tool_search_tool_result).
	RawType string `json:"raw_type"`
}

// Dir returns the fixture directory: $QUIVER_STREAM_FIXTURES, or
// driver/testdata/streams seen from a driver sub-package.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	return filepath.Join("..", "testdata", "streams")
}

// Load returns every fixture in Dir()/api, sorted by name. A folder with no
// fixtures fails the test: a missing directory must not pass silently.
func Load(t testing.TB, api string) []Fixture {
	t.Helper()
	dir := filepath.Join(Dir(), api)
	expected, err := filepath.Glob(filepath.Join(dir, "*.expected.json"))
	if err != nil || len(expected) == 0 {
		t.Fatalf("no fixtures in %s (err %v)", dir, err)
	}
	sort.Strings(expected)
	var out []Fixture
	for _, e := range expected {
		out = append(out, load(t, api, e))
	}
	return out
}

func load(t testing.TB, api, expectedPath string) Fixture {
	t.Helper()
	base := strings.TrimSuffix(expectedPath, ".expected.json")
	f := Fixture{API: api, Name: filepath.Base(base)}
	eb, err := os.ReadFile(expectedPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(eb, &f.Expected); err != nil {
		t.Fatalf("%s: %v", expectedPath, err)
	}
	if raw, err := os.ReadFile(base + ".sse"); err == nil {
		f.Raw, f.SSE = raw, true
		f.Payloads = sseData(raw)
	} else if raw, err := os.ReadFile(base + ".jsonl"); err == nil {
		f.Raw = raw
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
				f.Payloads = append(f.Payloads, bytes.Clone(line))
			}
		}
	} else {
		t.Fatalf("%s: neither %s.sse nor %s.jsonl", expectedPath, base, base)
	}
	return f
}

// sseData returns the data fields of an SSE byte stream.
func sseData(raw []byte) [][]byte {
	var out [][]byte
	for _, line := range bytes.Split(raw, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			out = append(out, bytes.TrimSpace(d))
		}
	}
	return out
}

// eventType returns the "type" member of a payload.
func eventType(payload []byte) string {
	var v struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(payload, &v)
	return v.Type
}

// ChatSSE frames Chat Completions chunks as OpenAI sends them: "data: " lines
// ending with "data: [DONE]". eol is "\n" or "\r\n".
func ChatSSE(payloads [][]byte, eol string) []byte {
	var b bytes.Buffer
	for _, p := range payloads {
		b.WriteString("data: ")
		b.Write(p)
		b.WriteString(eol + eol)
	}
	b.WriteString("data: [DONE]" + eol + eol)
	return b.Bytes()
}

// TypedSSE frames payloads with an "event:" line naming each one's type, as
// the Responses API and Anthropic send them.
func TypedSSE(payloads [][]byte, eol string) []byte {
	var b bytes.Buffer
	for _, p := range payloads {
		b.WriteString("event: " + eventType(p) + eol + "data: ")
		b.Write(p)
		b.WriteString(eol + eol)
	}
	return b.Bytes()
}

// redacted matches signatures the recording's source replaced with a
// placeholder that is not base64 (the real API only ever sends base64).
var redacted = regexp.MustCompile(`"thoughtSignature":"<redacted>"`)

// RedactedSignature is what a "<redacted>" thought signature is replaced
// with: the same word, base64-encoded, so that the SDK can decode it.
var RedactedSignature = base64.StdEncoding.EncodeToString([]byte("<redacted>"))

// GeminiSSE frames payloads as the Gemini API does for alt=sse: "data: "
// lines separated by blank lines, with CRLF line ends.
func GeminiSSE(payloads [][]byte) []byte {
	var b bytes.Buffer
	for _, p := range payloads {
		p = redacted.ReplaceAll(p, []byte(`"thoughtSignature":"`+RedactedSignature+`"`))
		b.WriteString("data: ")
		b.Write(p)
		b.WriteString("\r\n\r\n")
	}
	return b.Bytes()
}

// Check compares a driver's Response with the fixture's expected calls and
// text. An expected id of null must come back as a generated id.
func Check(t testing.TB, f Fixture, got *driver.Response) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: nil response", f.Name)
		return
	}
	if got.Text != f.Expected.Text {
		t.Errorf("%s: text:\n%s", f.Name, cmp.Diff(f.Expected.Text, got.Text))
	}
	checkCalls(t, f.Name+": tool calls", f.Expected.ToolCalls, got.ToolCalls)
	checkCalls(t, f.Name+": server tool calls", f.Expected.ServerToolCalls, got.ServerToolCalls)
}

// CheckReasoning compares a streamed reply's reasoning with the fixture's:
// the same pieces in order, text and signature equal, and each Responses
// item's encrypted content present byte for byte in the item kept to be
// sent back. A fixture that lists none must yield none.
func CheckReasoning(t testing.TB, f Fixture, got *driver.Response) {
	t.Helper()
	if len(got.Reasoning) != len(f.Expected.Reasoning) {
		t.Fatalf("%s: %d pieces of reasoning, want %d: %+v", f.Name, len(got.Reasoning), len(f.Expected.Reasoning), got.Reasoning)
	}
	for i, w := range f.Expected.Reasoning {
		g := got.Reasoning[i]
		if g.Text != w.Text {
			t.Errorf("%s: reasoning %d text:\n%s", f.Name, i, cmp.Diff(w.Text, g.Text))
		}
		if g.Signature != w.Signature {
			t.Errorf("%s: reasoning %d signature %q, want %q", f.Name, i, g.Signature, w.Signature)
		}
		if w.RawType != "" && !bytes.Contains(g.Raw, []byte(`"type":"`+w.RawType+`"`)) {
			t.Errorf("%s: reasoning %d: the kept block is not a %s: %.200s", f.Name, i, w.RawType, g.Raw)
		}
		if w.EncryptedContent != "" && !bytes.Contains(g.Raw, []byte(`"encrypted_content":"`+w.EncryptedContent+`"`)) {
			t.Errorf("%s: reasoning %d: the kept item lacks its encrypted content: %.200s", f.Name, i, g.Raw)
		}
	}
}

func checkCalls(t testing.TB, what string, want []ExpectedCall, got []driver.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d calls, want %d: %+v", what, len(got), len(want), got)
		return
	}
	for i, w := range want {
		g := got[i]
		switch {
		case w.ID == nil && (g.ID == "" || g.Metadata[driver.MetaIDGenerated] != "true"):
			t.Errorf("%s[%d]: provider sent no id; got id %q, metadata %v, want a generated id", what, i, g.ID, g.Metadata)
		case w.ID != nil && g.ID != *w.ID:
			t.Errorf("%s[%d]: id %q, want %q", what, i, g.ID, *w.ID)
		}
		if g.Name != w.Name {
			t.Errorf("%s[%d]: name %q, want %q", what, i, g.Name, w.Name)
		}
		if w.ThoughtSignature != "" && g.Metadata[driver.MetaThoughtSignature] != w.ThoughtSignature {
			t.Errorf("%s[%d]: thought signature %q, want %q", what, i, g.Metadata[driver.MetaThoughtSignature], w.ThoughtSignature)
		}
		var wa, ga any
		if err := json.Unmarshal(w.Arguments, &wa); err != nil {
			t.Fatalf("%s[%d]: expected arguments: %v", what, i, err)
		}
		if err := json.Unmarshal(g.Arguments, &ga); err != nil {
			t.Errorf("%s[%d]: arguments %q do not parse: %v", what, i, g.Arguments, err)
			continue
		}
		if d := cmp.Diff(wa, ga); d != "" {
			t.Errorf("%s[%d] (%s): arguments (-want +got):\n%s", what, i, w.Name, d)
		}
	}
}

// Drain reads s to its end and returns the Response of its EventDone, every
// event, and s's error.
func Drain(s driver.Stream) (*driver.Response, []driver.Event, error) {
	defer s.Close()
	var resp *driver.Response
	var evs []driver.Event
	for s.Next() {
		ev := s.Event()
		evs = append(evs, ev)
		if ev.Type == driver.EventDone {
			resp = ev.Response
		}
	}
	return resp, evs, s.Err()
}

// CheckEvents checks that a stream's events agree with its Response: the
// text deltas join to the text, every call starts before its deltas and
// ends with a done event equal to the Response's call, argument deltas (when
// the provider sends text fragments) parse to the call's arguments, and
// EventDone comes last.
func CheckEvents(t testing.TB, evs []driver.Event, resp *driver.Response) {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].Type != driver.EventDone {
		t.Fatalf("the last event is not EventDone: %+v", evs)
	}
	var text strings.Builder
	started := map[int]bool{}
	deltas := map[int]*strings.Builder{}
	done := map[int]driver.ToolCall{}
	for _, ev := range evs {
		switch ev.Type {
		case driver.EventTextDelta:
			text.WriteString(ev.Delta)
		case driver.EventToolCallStart:
			if started[ev.Index] {
				t.Errorf("call %d started twice", ev.Index)
			}
			started[ev.Index] = true
			deltas[ev.Index] = &strings.Builder{}
		case driver.EventToolCallDelta:
			if !started[ev.Index] {
				t.Errorf("argument delta for call %d before its start", ev.Index)
				continue
			}
			deltas[ev.Index].WriteString(ev.Delta)
		case driver.EventToolCallDone:
			if !started[ev.Index] {
				t.Errorf("call %d done before its start", ev.Index)
			}
			done[ev.Index] = ev.ToolCall
		}
	}
	if text.String() != resp.Text {
		t.Errorf("text deltas join to %q, response text is %q", text.String(), resp.Text)
	}
	if len(done) != len(resp.ToolCalls) {
		t.Errorf("%d done events for %d calls", len(done), len(resp.ToolCalls))
	}
	for i, c := range resp.ToolCalls {
		if d := cmp.Diff(c, done[i]); d != "" {
			t.Errorf("done event of call %d differs from the response's call (-response +event):\n%s", i, d)
		}
		b := deltas[i]
		if b == nil {
			t.Errorf("call %d has no start event", i)
			continue
		}
		if frag := strings.TrimSpace(b.String()); frag != "" && c.Arguments != nil {
			var a, b any
			if json.Unmarshal([]byte(frag), &a) != nil || json.Unmarshal(c.Arguments, &b) != nil || !cmp.Equal(a, b) {
				t.Errorf("call %d: argument deltas %q do not give its arguments %s", i, frag, c.Arguments)
			}
		}
	}
}
