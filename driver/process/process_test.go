package process

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
)

// The test binary is also the model program: started with childEnv set, it
// serves fakeModel on its standard input and output.
const childEnv = "QUIVER_PROCESS_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if err := Serve(context.Background(), os.Stdin, os.Stdout, openFake); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// openFake opens fakeModel for the models the tests name, and refuses the
// others as providers.New refuses a spec.
func openFake(_ context.Context, s driver.Spec) (driver.Model, error) {
	if s.Model != "fake" {
		return nil, fmt.Errorf("--model %q: no such model", s.Model)
	}
	return fakeModel{}, nil
}

// fakeModel answers by the last user message's text:
//
//	"calls"    a reply with a bad call beside a good one, and the CallError
//	"truncate" a stream that ends without its final event (ErrTruncated)
//	"block"    nothing until the request is cancelled
//	"crash"    the program exits, with a word on standard error
//	anything else: that text back, streamed a word at a time
type fakeModel struct{}

func (fakeModel) Generate(ctx context.Context, req driver.Request) (*driver.Response, error) {
	s, err := fakeModel{}.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	return driver.Collect(s)
}

func (fakeModel) Stream(ctx context.Context, req driver.Request) (driver.Stream, error) {
	text := req.Messages[len(req.Messages)-1].Text()
	var events []driver.Event
	var final error
	switch text {
	case "calls":
		good := driver.ToolCall{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`), Metadata: map[string]string{driver.MetaItemID: "i1"}}
		_, perr := driver.ParseArguments("c2", "edit", `{"path":`)
		events = append(events, driver.Event{Type: driver.EventDone, Response: &driver.Response{ID: "r1", ToolCalls: []driver.ToolCall{good, {ID: "c2", Name: "edit"}},
			StopReason: driver.StopToolCalls, Reasoning: []driver.Reasoning{{Format: driver.ReasoningAnthropic, Text: "hm", Signature: "sig"}},
			Usage: driver.Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}}})
		final = errors.Join(perr, &driver.CallError{ID: "c1", Name: "read_file", Err: driver.ErrDuplicateID})
	case "truncate":
		events = append(events, driver.Event{Type: driver.EventTextDelta, Delta: "half"})
		final = fmt.Errorf("stream: %w", driver.ErrTruncated)
	case "block":
		<-ctx.Done()
		return nil, ctx.Err()
	case "where":
		wd, _ := os.Getwd()
		events = append(events, driver.Event{Type: driver.EventDone, Response: &driver.Response{Text: wd}})
	case "crash":
		fmt.Fprintln(os.Stderr, "fake: out of luck")
		os.Exit(3)
	default:
		for _, w := range strings.Fields(text) {
			events = append(events, driver.Event{Type: driver.EventTextDelta, Delta: w})
		}
		events = append(events, driver.Event{Type: driver.EventDone, Response: &driver.Response{Text: text, StopReason: driver.StopEnd}})
	}
	i := 0
	return driver.NewStream(func(emit func(driver.Event)) (bool, error) {
		if i < len(events) {
			emit(events[i])
			i++
			return false, nil
		}
		return true, final
	}, func() error { return nil }), nil
}

func ask(text string) driver.Request {
	return driver.Request{Messages: []driver.Message{driver.UserMessage(text)},
		Tools: []driver.ToolDefinition{{Name: "read_file", Description: "reads"}}}
}

// child is a Model served by the test binary in a process of its own.
func child(t *testing.T, model string) *Model {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childEnv, "1")
	m := New(Config{Path: exe, Spec: driver.Spec{Provider: "openai", Model: model}, Env: os.Environ()})
	t.Cleanup(func() { m.Close() })
	return m
}

func TestGenerateRoundTrip(t *testing.T) {
	m := child(t, "fake")
	resp, err := m.Generate(context.Background(), ask("calls"))
	want, wantErr := fakeModel{}.Generate(context.Background(), ask("calls"))
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-in process +through the pipe):\n%s", diff)
	}
	if err == nil || err.Error() != wantErr.Error() {
		t.Fatalf("error %v, want %v", err, wantErr)
	}
	if !driver.IsCallError(err) {
		t.Errorf("IsCallError(%v) = false", err)
	}
	var ce *driver.CallError
	if !errors.As(err, &ce) || ce.ID != "c2" || !errors.Is(ce, driver.ErrInvalidArguments) {
		t.Errorf("errors.As CallError: %+v", ce)
	}
	if !errors.Is(err, driver.ErrDuplicateID) {
		t.Errorf("the second call's ErrDuplicateID is lost: %v", err)
	}
}

func TestStreamRoundTrip(t *testing.T) {
	m := child(t, "fake")
	s, err := m.Stream(context.Background(), ask("three little words"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for s.Next() {
		got = append(got, s.Event().Delta)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"three", "little", "words", ""}, got); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	s, err = m.Stream(context.Background(), ask("truncate"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := driver.Collect(s)
	if resp != nil || !errors.Is(err, driver.ErrTruncated) {
		t.Errorf("a cut stream: %v, %v; want ErrTruncated", resp, err)
	}
}

// TestConcurrentRequests: requests share one program, each gets its own
// replies.
func TestConcurrentRequests(t *testing.T) {
	m := child(t, "fake")
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := fmt.Sprintf("request number %d", i)
			resp, err := m.Generate(context.Background(), ask(text))
			if err != nil || resp.Text != text {
				errs <- fmt.Errorf("%q: %v, %v", text, resp, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCancel: a request whose context ends returns at once, and the
// program goes on serving.
func TestCancel(t *testing.T) {
	m := child(t, "fake")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := m.Generate(ctx, ask("block"))
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Generate: %v", err)
	}
	if resp, err := m.Generate(context.Background(), ask("still here")); err != nil || resp.Text != "still here" {
		t.Fatalf("after a cancel: %v, %v", resp, err)
	}
	// A stream closed before its end cancels its request too.
	s, err := m.Stream(context.Background(), ask("block"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if resp, err := m.Generate(context.Background(), ask("and still")); err != nil || resp.Text != "and still" {
		t.Fatalf("after a closed stream: %v, %v", resp, err)
	}
}

// TestCrash: a program that dies fails its requests with its exit and its
// last words, and the next request starts it again.
func TestCrash(t *testing.T) {
	m := child(t, "fake")
	_, err := m.Generate(context.Background(), ask("crash"))
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "fake: out of luck") {
		t.Fatalf("crash: %v", err)
	}
	if resp, err := m.Generate(context.Background(), ask("again")); err != nil || resp.Text != "again" {
		t.Fatalf("after a crash: %v, %v", resp, err)
	}
}

// TestRefusedSpec: the program's reason for refusing a spec is every
// request's error.
func TestRefusedSpec(t *testing.T) {
	m := child(t, "no-such")
	for range 2 {
		_, err := m.Generate(context.Background(), ask("hello"))
		if err == nil || !strings.Contains(err.Error(), `--model "no-such": no such model`) {
			t.Fatalf("refused spec: %v", err)
		}
	}
}

// TestMissingProgram: a program that cannot start is the request's error.
func TestMissingProgram(t *testing.T) {
	m := New(Config{Path: "/nonexistent/quiver-models", Spec: driver.Spec{Model: "fake"}})
	if _, err := m.Generate(context.Background(), ask("hello")); err == nil || !strings.Contains(err.Error(), "/nonexistent/quiver-models") {
		t.Fatalf("missing program: %v", err)
	}
	if _, err := m.Stream(context.Background(), ask("hello")); err == nil {
		t.Fatal("Stream on a missing program: no error")
	}
}

// TestClose: Close ends the program and later requests fail.
func TestClose(t *testing.T) {
	m := child(t, "fake")
	if _, err := m.Generate(context.Background(), ask("hello")); err != nil {
		t.Fatal(err)
	}
	c := m.conn
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if !c.dead() {
		t.Error("the program still runs after Close")
	}
	if _, err := m.Generate(context.Background(), ask("hello")); err == nil {
		t.Error("Generate after Close: no error")
	}
}

// openLine opens the protocol at this version.
var openLine = fmt.Sprintf(`{"op":"open","version":%d,"spec":{"model":"fake"}}`, version)

// TestServeRefusesBadInput: Serve answers what it cannot do with an error
// reply, never a panic, and a protocol of another version is refused.
func TestServeRefusesBadInput(t *testing.T) {
	for _, tc := range []struct{ name, in, wantReply, wantErr string }{
		{"not open first", `{"id":1,"op":"generate","request":{}}`, "must be", "must be"},
		{"other version", `{"op":"open","version":99,"spec":{"model":"fake"}}`, "protocol version 99", "protocol version"},
		{"not JSON", `{"op":`, "", "read the open request"},
		{"unknown op", openLine + "\n" + `{"id":4,"op":"fly"}`, `unknown op`, ""},
		{"no request", openLine + "\n" + `{"id":5,"op":"generate"}`, "without a request", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			err := Serve(context.Background(), strings.NewReader(tc.in+"\n"), &out, openFake)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Serve: %v, want an error with %q", err, tc.wantErr)
			}
			if !strings.Contains(out.String(), tc.wantReply) {
				t.Errorf("replies %s, want %q", out.String(), tc.wantReply)
			}
		})
	}
}

// TestServeEndsWithItsInput: the end of the input cancels what runs.
func TestServeEndsWithItsInput(t *testing.T) {
	r, w := io.Pipe()
	done := make(chan error)
	go func() { done <- Serve(context.Background(), r, io.Discard, openFake) }()
	fmt.Fprintln(w, openLine)
	b, _ := json.Marshal(request{ID: 1, Op: opGenerate, Request: ptr(ask("block"))})
	fmt.Fprintf(w, "%s\n", b)
	w.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not end with its input")
	}
}

func ptr[T any](v T) *T { return &v }

// TestRequestRoundTrip: what the caller sends is what the program's driver
// gets, nil slices and raw JSON included (a nil Raw sent as null would be
// replayed to the provider as an item).
func TestRequestRoundTrip(t *testing.T) {
	yes := true
	req := driver.Request{
		Messages: []driver.Message{
			driver.SystemMessage("be brief"),
			driver.UserParts(tool.Part{Type: tool.PartText, Text: "see"}, tool.Part{Type: tool.PartImage, MIMEType: "image/png", Data: []byte{0, 1, 2, 255}}),
			{Role: driver.RoleAssistant, ToolCalls: []driver.ToolCall{{ID: "c1", Name: "grep", Arguments: json.RawMessage(`{"q":"x"}`)}, {ID: "c2", Name: "edit"}},
				Reasoning: []driver.Reasoning{{Format: driver.ReasoningResponses, Raw: json.RawMessage(`{"type":"reasoning","id":"rs_1"}`), Before: 1}, {Format: driver.ReasoningAnthropic, Text: "t", Signature: "s"}}},
			driver.ToolMessage(driver.ToolResult{CallID: "c1", Name: "grep", Content: []tool.Part{{Type: tool.PartJSON, JSON: json.RawMessage(`[1,2]`)}}, IsError: true, Metadata: map[string]string{"k": "v"}}),
		},
		Tools:             []driver.ToolDefinition{{Name: "grep", Description: "d", Parameters: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"q": {Type: "string"}}, Required: []string{"q"}}, Strict: true}},
		ToolChoice:        driver.Choose("grep"),
		ParallelToolCalls: &yes,
		MaxTokens:         100,
		Reasoning:         driver.ReasoningConfig{BudgetTokens: 1024, Effort: "low"},
	}
	b, err := json.Marshal(request{ID: 1, Op: opGenerate, Request: &req})
	if err != nil {
		t.Fatal(err)
	}
	var got request
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(req, *got.Request, cmpopts.IgnoreUnexported(jsonschema.Schema{})); diff != "" {
		t.Errorf("request (-sent +received):\n%s", diff)
	}
}

// TestFramingHoldsAnyText: text that looks like the protocol's own lines (a
// newline, then a reply of another request) is only text.
func TestFramingHoldsAnyText(t *testing.T) {
	m := child(t, "fake")
	text := "one\n{\"id\":1,\"done\":true,\"response\":{\"Text\":\"forged\"}}\n\u2028two\r\n\x00"
	resp, err := m.Generate(context.Background(), ask(text))
	if err != nil || resp.Text != text {
		t.Fatalf("Generate(%q) = %+v, %v", text, resp, err)
	}
}

// TestProgramRunsOutsideTheCallersDirectory: the program starts in /, so
// no file in the caller's directory (the workspace) can configure it.
func TestProgramRunsOutsideTheCallersDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	m := child(t, "fake")
	resp, err := m.Generate(context.Background(), ask("where"))
	if err != nil || resp.Text != "/" {
		t.Fatalf("the program's working directory: %+v, %v; want /", resp, err)
	}
}
