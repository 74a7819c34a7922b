package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listingFixture is a small project with ignore files (one nested), hidden
// entries, a .git directory, a symbolic link and a named pipe.
func listingFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		".gitignore":             "build/\n*.log\n",
		".env":                   "SECRET=1\n",
		".hidden/x.txt":          "x\n",
		".git/HEAD":              "ref: refs/heads/main\n",
		"README.md":              "# readme\n",
		"build/out.bin":          "bin",
		"debug.log":              "log\n",
		"cmd/app/main.go":        "package main\n",
		"cmd/tool/main.go":       "package main\n",
		"internal/.gitignore":    "gen/\n",
		"internal/gen/x.go":      "package gen\n",
		"internal/a/a.go":        "package a\n",
		"internal/a/b/c/deep.go": "package c\n",
		"zz.txt":                 "zz\n",
		"src/.keep":              "",
	}
	for p, c := range files {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../README.md", filepath.Join(root, "src", "link")); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(root, "pipe")); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestTreeDraws(t *testing.T) {
	tests := []struct {
		name string
		args string
		want *TreeOutput
	}{
		{"tree: ignore files honoured, hidden entries left out, depth 3", `{}`, &TreeOutput{Path: ".", Dirs: 7, Files: 7, Tree: `./
├── README.md
├── cmd/
│   ├── app/
│   │   └── main.go
│   └── tool/
│       └── main.go
├── internal/
│   └── a/
│       ├── a.go
│       └── b/
├── pipe
├── src/
│   └── link -> ../README.md
└── zz.txt
`}},
		{"tree: a subdirectory, one level", `{"path":"internal","depth":1}`, &TreeOutput{Path: "internal", Dirs: 1, Tree: `internal/
└── a/
`}},
		{"tree: hidden entries when asked, never .git", `{"path":".","depth":1,"include_hidden":true}`, &TreeOutput{Path: ".", Dirs: 4, Files: 5, Tree: `./
├── .env
├── .gitignore
├── .hidden/
├── README.md
├── cmd/
├── internal/
├── pipe
├── src/
└── zz.txt
`}},
		{"tree: the limit keeps the shallow entries and says so", `{"limit":4}`, &TreeOutput{Path: ".", Dirs: 2, Files: 2, Truncated: true, Tree: `./
├── README.md
├── cmd/
├── internal/
└── pipe
`}},
		{"tree: a limit equal to the number of entries is not a cut", `{"limit":14}`, &TreeOutput{Path: ".", Dirs: 7, Files: 7}},
	}
	root := listingFixture(t)
	env := newFileEnv(t, root)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := env.runOK(newTree(), tt.args).Output.(*TreeOutput)
			if tt.want.Tree == "" {
				got.Tree = ""
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTreeIsDeterministic(t *testing.T) {
	env := newFileEnv(t, listingFixture(t))
	first := env.runOK(newTree(), `{"depth":5,"include_hidden":true}`).String()
	for i := 0; i < 3; i++ {
		if again := env.runOK(newTree(), `{"depth":5,"include_hidden":true}`).String(); again != first {
			t.Fatalf("two drawings differ:\n%s\n%s", first, again)
		}
	}
}

func TestTreeRender(t *testing.T) {
	env := newFileEnv(t, listingFixture(t))
	got := env.runOK(newTree(), `{"path":"cmd","limit":2}`).String()
	want := "cmd/\n├── app/\n└── tool/\n\n2 directories, 0 files\n[truncated: the limit was reached; raise limit, lower depth, or draw a subdirectory]\n"
	if got != want {
		t.Errorf("view:\n%s\nwant:\n%s", got, want)
	}
}
