package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/tool"
)

// chatReviewer is a Chat Completions server on loopback: it answers every
// request with one vote call, or with an error status. It counts the
// requests that showed it the call under review, and checks the key.
type chatReviewer struct {
	url  string
	seen atomic.Int32
}

func newChatReviewer(t *testing.T, status int, vote, key string) *chatReviewer {
	t.Helper()
	r := &chatReviewer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if strings.Contains(string(body), "write_file") && strings.Contains(string(body), "notes.txt") {
			r.seen.Add(1)
		}
		if got := req.Header.Get("Authorization"); got != "Bearer "+key {
			http.Error(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
			return
		}
		if status != http.StatusOK {
			http.Error(w, `{"error":{"message":"overloaded","type":"server_error"}}`, status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-v","object":"chat.completion","created":1700000000,"model":"reviewer",
"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"tool_calls":[
{"id":"call_v","type":"function","function":{"name":"vote","arguments":%q}}]}}]}`, vote)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/v1"
	return r
}

const (
	voteYes = `{"approve":true,"reason":"writing notes is the task"}`
	voteNo  = `{"approve":false,"reason":"the task did not ask for this file"}`
)

// reviewTOML is a [review] section with one reviewer per server.
func reviewTOML(keyEnv string, reviewers ...*chatReviewer) string {
	var b strings.Builder
	b.WriteString("[review]\nrisk = [\"high\"]\nrule = \"majority\"\n")
	for _, r := range reviewers {
		fmt.Fprintf(&b, "\n[[review.reviewers]]\nprovider = \"openai\"\nmodel = \"reviewer\"\napi = \"chat\"\nbase_url = %q\napi_key_env = %q\n", r.url, keyEnv)
	}
	return b.String()
}

const writeNotes = `{"path":"notes.txt","content":"hello\n"}`

// The reviewers of [review] decide quiver call's high-risk calls, by a
// majority of the votes cast: a reviewer that fails casts none, and a tie
// refuses. Low-risk calls are not reviewed.
func TestCallReviewedByConfiguredReviewers(t *testing.T) {
	const keyEnv = "QUIVER_TEST_REVIEW_KEY"
	t.Setenv(keyEnv, "review-key")
	approving := func() *chatReviewer { return newChatReviewer(t, http.StatusOK, voteYes, "review-key") }
	rejecting := func() *chatReviewer { return newChatReviewer(t, http.StatusOK, voteNo, "review-key") }
	failing := func() *chatReviewer { return newChatReviewer(t, http.StatusInternalServerError, "", "review-key") }
	cases := []struct {
		name      string
		reviewers []*chatReviewer
		yes       bool
		written   bool
		want      string // in the output
	}{
		{"approve, reject, fail: a 1-1 tie refuses", []*chatReviewer{approving(), rejecting(), failing()}, false, false, "tied 1-1"},
		{"approve, approve, reject, fail: approved 2-1", []*chatReviewer{approving(), approving(), rejecting(), failing()}, false, true, ""},
		{"--yes does not overrule the reviewers", []*chatReviewer{rejecting(), failing()}, true, false, "rejected 1-0"},
		{"every reviewer failing refuses", []*chatReviewer{failing(), failing()}, true, false, "no reviewer voted"},
		{"a wrong key is a failed reviewer", []*chatReviewer{newChatReviewer(t, http.StatusOK, voteYes, "other-key")}, true, false, "no reviewer voted"},
		{"[review] with no reviewers refuses, even with --yes", nil, true, false, "no reviewers are configured"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := workdir(t, map[string]string{"quiver.toml": reviewTOML(keyEnv, c.reviewers...)})
			args := []string{"call", "write_file", writeNotes}
			if c.yes {
				args = append([]string{"--yes"}, args...)
			}
			r := runCLI(t, dir, "", args...)
			_, err := os.Stat(filepath.Join(dir, "notes.txt"))
			if written := err == nil; written != c.written || (c.written && r.code != 0) {
				t.Fatalf("written = %v, want %v: %+v", written, c.written, r)
			}
			if !c.written && (!strings.Contains(r.stderr, "APPROVAL_DENIED") || !strings.Contains(r.stderr, c.want)) {
				t.Errorf("stderr %q, want APPROVAL_DENIED and %q", r.stderr, c.want)
			}
			for i, rv := range c.reviewers {
				if rv.seen.Load() == 0 {
					t.Errorf("reviewer %d was not shown the call", i+1)
				}
			}
			// Low-risk calls do not go to the reviewers.
			before := make([]int32, len(c.reviewers))
			for i, rv := range c.reviewers {
				before[i] = rv.seen.Load()
			}
			if r := runCLI(t, dir, "", "call", "read_file", `{"path":"quiver.toml"}`); r.code != 0 {
				t.Errorf("read_file: %+v", r)
			}
			for i, rv := range c.reviewers {
				if rv.seen.Load() != before[i] {
					t.Errorf("reviewer %d was asked about a low-risk call", i+1)
				}
			}
		})
	}
}

// A reviewer that cannot be built (no key, no base URL) is a usage error of
// the configuration, reported before any call runs.
func TestReviewerWithoutKeyIsAConfigError(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"quiver.toml": "[[review.reviewers]]\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"QUIVER_TEST_KEY_THAT_IS_NOT_SET\"\n"})
	r := runCLI(t, dir, "", "config", "check")
	if r.code != 2 || !strings.Contains(r.stderr, "review.reviewers[0]") || !strings.Contains(r.stderr, "QUIVER_TEST_KEY_THAT_IS_NOT_SET") {
		t.Fatalf("config check: %+v", r)
	}
}

// scripted is an approver that answers from a list and counts its calls.
type scripted struct {
	answers []bool
	calls   int
}

func (s *scripted) Approve(context.Context, policy.Request) (policy.Approval, error) {
	ok := s.answers[s.calls%len(s.answers)]
	s.calls++
	return policy.Approval{Approved: ok, By: "scripted"}, nil
}

// Three rejections in a row of the same call go to the person; a different
// call, or an approval in between, starts the count again. With --yes (or
// nobody) there is no one to escalate to.
func TestReviewEscalatesAfterThreeRejections(t *testing.T) {
	req := func(args string) policy.Request {
		return policy.Request{Tool: "write_file", Risk: tool.RiskHigh, Arguments: []byte(args)}
	}
	cases := []struct {
		name      string
		reviewers []bool // the quorum's verdicts, in order
		person    policy.Approver
		calls     []string
		want      []bool
		asked     int // how often the person was asked
	}{
		{"the third rejection asks the person, who approves", []bool{false}, &scripted{answers: []bool{true}},
			[]string{"a", "a", "a", "a"}, []bool{false, false, true, false}, 1},
		{"other calls do not count", []bool{false}, &scripted{answers: []bool{true}},
			[]string{"a", "b", "a", "b", "a"}, []bool{false, false, false, false, true}, 1},
		{"an approval starts the count again", []bool{false, false, true, false, false, false}, &scripted{answers: []bool{true}},
			[]string{"a", "a", "a", "a", "a", "a"}, []bool{false, false, true, false, false, true}, 1},
		{"the person may refuse too", []bool{false}, &scripted{answers: []bool{false}},
			[]string{"a", "a", "a"}, []bool{false, false, false}, 1},
		{"--yes is nobody to escalate to", []bool{false}, approve.Auto,
			[]string{"a", "a", "a", "a"}, []bool{false, false, false, false}, 0},
		{"no approver at all", []bool{false}, nil,
			[]string{"a", "a", "a", "a"}, []bool{false, false, false, false}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			votes := &scripted{answers: c.reviewers}
			r := newReview(votes, func(string) bool { return true }, c.person)
			var got []bool
			for _, args := range c.calls {
				a, err := r.Approve(context.Background(), req(args))
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, a.Approved)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("approved %v, want %v", got, c.want)
			}
			if s, ok := c.person.(*scripted); ok && s.calls != c.asked {
				t.Errorf("person asked %d times, want %d", s.calls, c.asked)
			}
		})
	}
}
