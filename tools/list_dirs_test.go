package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

func TestListDirs(t *testing.T) {
	tests := []struct {
		name string
		args string
		want *ListDirsOutput
	}{
		{"list_dirs: two levels by default, ignored and hidden left out", `{}`, &ListDirsOutput{Path: ".", Dirs: []DirEntry{
			{"cmd", 1}, {"cmd/app", 2}, {"cmd/tool", 2}, {"internal", 1}, {"internal/a", 2}, {"src", 1}}}},
		{"list_dirs: three levels", `{"depth":3}`, &ListDirsOutput{Path: ".", Dirs: []DirEntry{
			{"cmd", 1}, {"cmd/app", 2}, {"cmd/tool", 2}, {"internal", 1}, {"internal/a", 2}, {"internal/a/b", 3}, {"src", 1}}}},
		{"list_dirs: below a subdirectory, depth counted from it", `{"path":"internal","depth":3}`, &ListDirsOutput{Path: "internal", Dirs: []DirEntry{
			{"internal/a", 1}, {"internal/a/b", 2}, {"internal/a/b/c", 3}}}},
		{"list_dirs: hidden directories when asked", `{"depth":1,"include_hidden":true}`, &ListDirsOutput{Path: ".", Dirs: []DirEntry{
			{".hidden", 1}, {"cmd", 1}, {"internal", 1}, {"src", 1}}}},
		{"list_dirs: the limit keeps the shallow directories", `{"depth":3,"limit":3}`, &ListDirsOutput{Path: ".", Truncated: true, Dirs: []DirEntry{
			{"cmd", 1}, {"internal", 1}, {"src", 1}}}},
		{"list_dirs: a limit that cuts nothing", `{"depth":1,"limit":3}`, &ListDirsOutput{Path: ".", Dirs: []DirEntry{
			{"cmd", 1}, {"internal", 1}, {"src", 1}}}},
		{"list_dirs: an empty directory", `{"path":"src"}`, &ListDirsOutput{Path: "src", Dirs: []DirEntry{}}},
	}
	env := newFileEnv(t, listingFixture(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := env.runOK(newListDirs(), tt.args).Output.(*ListDirsOutput)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestListDirsDepthAboveThree(t *testing.T) {
	env := newFileEnv(t, listingFixture(t))
	_, err := env.run(newListDirs(), `{"depth":4}`)
	wantToolError(t, err, tool.CodeInvalidArguments, "depth")
	_, err = listDirs(t.Context(), env.context("list_dirs"), ListDirsInput{Depth: 4})
	wantToolError(t, err, tool.CodeInvalidArguments, "more than 3")
}
