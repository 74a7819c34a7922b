package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

func TestListFiles(t *testing.T) {
	readme := int64(len("# readme\n"))
	tests := []struct {
		name string
		args string
		want *ListFilesOutput
	}{
		{"list_files: regular files of one directory, ignored, hidden and pipes left out", `{}`, &ListFilesOutput{Path: ".", Files: []FileEntry{
			{"README.md", "README.md", readme}, {"zz.txt", "zz.txt", 3}}}},
		{"list_files: a pattern on names", `{"pattern":"*.md"}`, &ListFilesOutput{Path: ".", Files: []FileEntry{
			{"README.md", "README.md", readme}}}},
		{"list_files: a brace pattern", `{"pattern":"*.{md,txt}"}`, &ListFilesOutput{Path: ".", Files: []FileEntry{
			{"README.md", "README.md", readme}, {"zz.txt", "zz.txt", 3}}}},
		{"list_files: hidden files when asked", `{"include_hidden":true}`, &ListFilesOutput{Path: ".", Files: []FileEntry{
			{".env", ".env", 9}, {".gitignore", ".gitignore", 13}, {"README.md", "README.md", readme}, {"zz.txt", "zz.txt", 3}}}},
		{"list_files: a symlink to a file counts, with its target's size", `{"path":"src","include_hidden":true}`, &ListFilesOutput{Path: "src", Files: []FileEntry{
			{"src/.keep", ".keep", 0}, {"src/link", "link", readme}}}},
		{"list_files: not recursive", `{"path":"cmd"}`, &ListFilesOutput{Path: "cmd", Files: []FileEntry{}}},
		{"list_files: the limit cuts and says so", `{"limit":1}`, &ListFilesOutput{Path: ".", Truncated: true, Files: []FileEntry{
			{"README.md", "README.md", readme}}}},
		{"list_files: a limit that cuts nothing", `{"limit":2}`, &ListFilesOutput{Path: ".", Files: []FileEntry{
			{"README.md", "README.md", readme}, {"zz.txt", "zz.txt", 3}}}},
		{"list_files: an ignored directory named explicitly is listed", `{"path":"build"}`, &ListFilesOutput{Path: "build", Files: []FileEntry{
			{"build/out.bin", "out.bin", 3}}}},
	}
	env := newFileEnv(t, listingFixture(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := env.runOK(newListFiles(), tt.args).Output.(*ListFilesOutput)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestListFilesBadPattern(t *testing.T) {
	env := newFileEnv(t, listingFixture(t))
	_, err := env.run(newListFiles(), `{"pattern":"[abc"}`)
	wantToolError(t, err, tool.CodeInvalidArguments, `field "pattern"`, "not a valid glob")
}
