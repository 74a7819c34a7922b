package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

func TestErrors(t *testing.T) {
	cause := fs.ErrNotExist
	e := tool.Errorf(tool.CodeExecutionFailed, "open %s: %w", "a.txt", cause)
	if e.Error() != "EXECUTION_FAILED: open a.txt: file does not exist" || !errors.Is(e, fs.ErrNotExist) {
		t.Errorf("Errorf = %q (unwraps to cause: %v)", e, errors.Is(e, cause))
	}
	wrapped := fmt.Errorf("context: %w", tool.Errorf(tool.CodeTimeout, "slow"))
	if tool.CodeOf(wrapped) != tool.CodeTimeout || !tool.AsError(wrapped).Retriable {
		t.Errorf("a wrapped *Error lost its code: %v", wrapped)
	}
	plain := tool.AsError(errors.New("boom"))
	if plain.Code != tool.CodeExecutionFailed || tool.AsError(nil) != nil || tool.CodeOf(errors.New("x")) != "" {
		t.Errorf("AsError = %+v", plain)
	}
	for code, retriable := range map[tool.Code]bool{tool.CodeInvalidArguments: true, tool.CodeInvalidToolArgumentsType: true,
		tool.CodeTimeout: true, tool.CodeStoreUnavailable: true, tool.CodeRateLimited: true, tool.CodeNoConnection: false, tool.CodeTreeTruncated: false,
		tool.CodeCancelled: false, tool.CodeToolNotFound: false, tool.CodeInternal: false} {
		if code.Retriable() != retriable {
			t.Errorf("%s.Retriable() = %v", code, !retriable)
		}
	}
	if e := tool.Errorf(tool.CodeInternal, "x").WithTool("a").WithTool("b"); e.Tool != "a" {
		t.Errorf("WithTool overwrote the tool: %q", e.Tool)
	}
}

func TestCheck(t *testing.T) {
	ok := tool.Func("ok", "fine", func(context.Context, tool.Context, struct{}) (string, error) { return "", nil })
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*tool.Tool){
		"bad name":   func(t *tool.Tool) { t.Name = "has space" },
		"long name":  func(t *tool.Tool) { t.Name = strings.Repeat("a", 65) },
		"no execute": func(t *tool.Tool) { t.Execute = nil },
		// A tool filled in directly has no schema unless it sets one; a
		// Func tool's is inferred (see TestFuncCheckDoesNotInfer).
		"no schema":     func(t *tool.Tool) { *t = tool.Tool{Name: t.Name, Risk: t.Risk, Execute: t.Execute} },
		"not an object": func(t *tool.Tool) { in, _ := t.Schemas(); s := *in; s.Type = "array"; t.InputSchema = &s },
		"bad risk":      func(t *tool.Tool) { t.Risk = "medium" },
		// A promise about low-risk calls needs something that rates calls:
		// without it every call would run read-only on the tool's word alone.
		"read-only when low-risk, no rating": func(t *tool.Tool) { t.ReadOnlyWhenLowRisk = true },
		"writes paths, annotated read-only": func(t *tool.Tool) {
			t.WritesSubjectPaths, t.Annotations.ReadOnly = true, true
		},
	} {
		c := *ok
		mutate(&c)
		if c.Check() == nil {
			t.Errorf("%s: Check passed", name)
		}
	}
}

// TestFuncPolicyProperties checks that the options reach the fields the
// policy (and `quiver call`) reads, and that a tool built without them
// claims none.
func TestFuncPolicyProperties(t *testing.T) {
	run := func(context.Context, tool.Context, struct{}) (string, error) { return "", nil }
	rate := tool.WithCallRisk(func(context.Context, tool.Context, struct{}) tool.Rating { return tool.Rating{Risk: tool.RiskLow} })
	type props struct{ ReadOnlyWhenLowRisk, WritesSubjectPaths, InProcess bool }
	cases := []struct {
		name string
		opts []tool.Option
		want props
	}{
		{"none", []tool.Option{rate, tool.ReadOnly()}, props{}},
		{"read-only when low-risk", []tool.Option{rate, tool.ReadOnlyWhenLowRisk()}, props{ReadOnlyWhenLowRisk: true}},
		{"writes subject paths", []tool.Option{tool.WritesSubjectPaths()}, props{WritesSubjectPaths: true}},
		{"in process", []tool.Option{tool.InProcess()}, props{InProcess: true}},
	}
	for _, c := range cases {
		tt := tool.Func("t", "d", run, c.opts...)
		got := props{tt.ReadOnlyWhenLowRisk, tt.WritesSubjectPaths, tt.InProcess}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", c.name, diff)
		}
	}
}

type shout struct{ Text string }

func (s shout) Render() tool.Result { return tool.Text(strings.ToUpper(s.Text)) }

func TestFuncRendersAndKeepsTypedOutput(t *testing.T) {
	type in struct {
		Text string `json:"text"`
	}
	plain := tool.Func("plain", "d", func(_ context.Context, _ tool.Context, i in) (map[string]string, error) {
		return map[string]string{"got": i.Text}, nil
	}, tool.ReadOnly())
	rendered := tool.Func("rendered", "d", func(_ context.Context, _ tool.Context, i in) (shout, error) { return shout(i), nil })
	failing := tool.Func("failing", "d", func(context.Context, tool.Context, in) (string, error) {
		return "", tool.Errorf(tool.CodeInvalidArguments, "text must rhyme")
	})
	ctx := context.Background()
	res, err := plain.Execute(ctx, tool.NewContext("c", "plain", nil, nil), json.RawMessage(`{"text":"hi"}`))
	if err != nil || res.String() != `{"got":"hi"}` || res.Output.(map[string]string)["got"] != "hi" {
		t.Errorf("plain = %q %v %v", res.String(), res.Output, err)
	}
	if plain.Risk != tool.RiskLow || rendered.Risk != tool.RiskHigh {
		t.Errorf("default risks: %s %s", plain.Risk, rendered.Risk)
	}
	res, _ = rendered.Execute(ctx, tool.NewContext("c", "rendered", nil, nil), json.RawMessage(`{"text":"hi"}`))
	if res.String() != "HI" || res.Output.(shout).Text != "hi" {
		t.Errorf("rendered = %q", res.String())
	}
	if _, err := failing.Execute(ctx, tool.NewContext("c", "failing", nil, nil), json.RawMessage(`{}`)); tool.CodeOf(err) != tool.CodeInvalidArguments {
		t.Errorf("failing = %v", err)
	}
	if _, err := plain.Execute(ctx, tool.NewContext("c", "plain", nil, nil), json.RawMessage(`{"text":5}`)); tool.CodeOf(err) != tool.CodeInvalidArguments || !strings.Contains(err.Error(), `"text"`) {
		t.Errorf("decode error = %v", err)
	}
}

func TestResolveMakesOnceAndHonoursOverrides(t *testing.T) {
	var made atomic.Int32
	key := tool.Key[int32]{ID: "n", Create: func(context.Context) (int32, error) { return made.Add(1), nil }}
	tc := tool.NewContext("c", "x", nil, tool.NewScope(nil, nil))
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := tool.Resolve(context.Background(), tc, key); err != nil || v != 1 {
				t.Errorf("Resolve = %v, %v", v, err)
			}
		}()
	}
	wg.Wait()
	over := tool.NewContext("c", "x", nil, tool.NewScope(map[string]tool.Factory{"n": func(context.Context) (any, error) { return int32(42), nil }}, nil))
	if v, _ := tool.Resolve(context.Background(), over, key); v != 42 {
		t.Errorf("override = %d", v)
	}
	wrong := tool.NewContext("c", "x", nil, tool.NewScope(map[string]tool.Factory{"n": func(context.Context) (any, error) { return "text", nil }}, nil))
	if _, err := tool.Resolve(context.Background(), wrong, key); tool.CodeOf(err) != tool.CodeExecutionFailed || !strings.Contains(err.Error(), `"n"`) {
		t.Errorf("wrong type = %v", err)
	}
	none := tool.Key[string]{ID: "none"}
	if _, err := tool.Resolve(context.Background(), tc, none); tool.CodeOf(err) != tool.CodeExecutionFailed {
		t.Errorf("no Create = %v", err)
	}
}
