package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// --json-output prints only the answer's JSON value on standard output,
// whatever models wrap it in; an answer with no JSON fails the run.
func TestRunJSONOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, answer string
		want         string // standard output; "" when the run fails
	}{
		{"bare", `{"status": "ok"}`, `{"status": "ok"}`},
		{"fenced", "```json\n{\"status\": \"ok\"}\n```", `{"status": "ok"}`},
		{"leading prose and a fence", "Here is the result:\n\n```json\n{\"files\": [\"a.go\"]}\n```", `{"files": ["a.go"]}`},
		{"trailing prose", "{\"status\": \"ok\"}\n\nLet me know if you need more.", `{"status": "ok"}`},
		{"several objects: the first", `Result: {"n": 1} and an alternative: {"n": 2}`, `{"n": 1}`},
		{"no JSON", "I could not find the files.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := openAIScript(t, chatCall("call_1", "read_file", `{"path":"todo.txt"}`), chatText(tt.answer))
			dir := workdir(t, map[string]string{"todo.txt": "ship it\n"})
			r := runCLI(t, dir, "", "run", "--json-output", "--base-url", srv.URL, "--model", "m", "Answer in JSON.")
			if tt.want == "" {
				if r.code != exitTool || r.stdout != "" || !strings.Contains(r.stderr, "no JSON object or array") {
					t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, and the reason", r.code, r.stdout, r.stderr, exitTool)
				}
				return
			}
			if r.code != 0 || r.stdout != tt.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, tt.want)
			}
			// --json's result event carries the cut answer too.
			srv, _ = openAIScript(t, chatText(tt.answer))
			r = runCLI(t, dir, "", "run", "--json", "--json-output", "--base-url", srv.URL, "--model", "m", "Answer in JSON.")
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			var j runResult
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &j); err != nil || r.code != 0 || j.Text != tt.want {
				t.Errorf("--json: exit %d, result %+v (%v), want text %q", r.code, j, err, tt.want)
			}
		})
	}
}

// --trim-outputs replaces an older tool output that does not fit the budget
// with a stub naming its ref before the next request; without the flag the
// output is sent whole.
func TestRunTrimOutputs(t *testing.T) {
	t.Parallel()
	var big strings.Builder
	for i := range 400 {
		fmt.Fprintf(&big, "a line of the big file, number %d\n", i)
	}
	tests := []struct {
		name    string
		flags   []string
		stubbed bool
	}{
		{"off", nil, false},
		{"a budget smaller than the output", []string{"--trim-outputs", "4000"}, true},
		{"a budget larger than the conversation", []string{"--trim-outputs", "1000000"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, requests := openAIScript(t, chatCall("call_1", "read_file", `{"path":"big.txt"}`), chatText("Read it."))
			dir := workdir(t, map[string]string{"big.txt": big.String()})
			args := append([]string{"run", "--base-url", srv.URL, "--model", "m"}, tt.flags...)
			if r := runCLI(t, dir, "", append(args, "Read big.txt.")...); r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			reqs := requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests to the model, want 2", len(reqs))
			}
			stubbed := strings.Contains(reqs[1], "removed to fit the context budget") && strings.Contains(reqs[1], "ref=out_")
			whole := strings.Contains(reqs[1], "number 399")
			if stubbed != tt.stubbed || whole == tt.stubbed {
				t.Errorf("second request: stubbed %v, whole output %v; want stubbed %v", stubbed, whole, tt.stubbed)
			}
		})
	}
}

func TestRunOptionUsageErrors(t *testing.T) {
	t.Parallel()
	r := runCLI(t, workdir(t, nil), "", "run", "--base-url", "http://127.0.0.1:1", "--model", "m", "--trim-outputs", "-1", "task")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--trim-outputs") {
		t.Errorf("exit %d, stderr %q; want %d naming --trim-outputs", r.code, r.stderr, exitUsage)
	}
}
