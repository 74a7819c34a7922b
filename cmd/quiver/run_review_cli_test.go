package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reviewers of [review] decide the high-risk calls the model makes in
// `quiver run`, as they do quiver call's: a majority of the votes cast runs
// the call, a majority against sends the model the refusal instead. The
// model and the reviewers are loopback servers speaking Chat Completions,
// and no person is asked (standard input is empty).
func TestRunReviewedByConfiguredReviewers(t *testing.T) {
	const keyEnv = "QUIVER_TEST_RUN_REVIEW_KEY"
	t.Setenv(keyEnv, "review-key")
	reviewer := func(status int, vote string) *chatReviewer { return newChatReviewer(t, status, vote, "review-key") }
	cases := []struct {
		name      string
		reviewers []*chatReviewer
		written   bool
	}{
		{"approved 2-1, a failing reviewer casts no vote", []*chatReviewer{reviewer(http.StatusOK, voteYes), reviewer(http.StatusOK, voteYes),
			reviewer(http.StatusOK, voteNo), reviewer(http.StatusInternalServerError, "")}, true},
		{"rejected 2-1", []*chatReviewer{reviewer(http.StatusOK, voteNo), reviewer(http.StatusOK, voteNo),
			reviewer(http.StatusOK, voteYes)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, requests := openAIScript(t, chatCall("call_1", "write_file", writeNotes), chatText("Finished."))
			dir := workdir(t, map[string]string{"quiver.toml": reviewTOML(keyEnv, c.reviewers...)})

			r := runCLI(t, dir, "", "run", "--base-url", srv.URL, "--model", "m", "Write hello to notes.txt.")
			if r.code != 0 || r.stdout != "Finished.\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			_, err := os.Stat(filepath.Join(dir, "notes.txt"))
			if written := err == nil; written != c.written {
				t.Errorf("notes.txt written = %v, want %v; stderr %q", written, c.written, r.stderr)
			}
			// The model is told of the refusal, with the reviewers' reason.
			reqs := requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests to the model, want 2", len(reqs))
			}
			told := strings.Contains(reqs[1], "APPROVAL_DENIED") && strings.Contains(reqs[1], "the task did not ask for this file")
			if told == c.written {
				t.Errorf("the model was told of a refusal: %v, want %v", told, !c.written)
			}
			for i, rv := range c.reviewers {
				if rv.seen.Load() == 0 {
					t.Errorf("reviewer %d was not shown the call", i+1)
				}
			}
		})
	}
}
