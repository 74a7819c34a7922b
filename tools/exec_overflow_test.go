package tools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tools"
)

// TestOverflowFilesAreBounded: without an output cache, each overflowing
// command's whole output goes to a file the answer names; many such calls
// keep the files' directory within its caps (oldest removed first, the
// newest always there, one output cut at the byte cap, as its marker
// says), and the toolkit's Close removes them all.
func TestOverflowFilesAreBounded(t *testing.T) {
	const maxBytes, maxFiles = 64 << 10, 3
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()),
		quiver.WithOutputCache(nil, outputcache.Budget{MaxBytes: 1 << 10}),
		quiver.Override(tools.ExecConfigKey, func(context.Context) (tools.ExecConfig, error) {
			return tools.ExecConfig{OverflowMaxBytes: maxBytes, OverflowMaxFiles: maxFiles}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	ctx := context.Background()
	var dir string
	for i := range 8 {
		lines := 4000 // about 23 KiB
		if i == 6 {
			lines = 40000 // past the byte cap alone
		}
		out, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Argv: []string{"seq", "1", fmt.Sprint(lines)}})
		if err != nil {
			t.Fatal(err)
		}
		if out.OutputFile == "" || !out.Truncated {
			t.Fatalf("call %d kept no file: %+v", i, out)
		}
		dir = filepath.Dir(out.OutputFile)
		fi, err := os.Stat(out.OutputFile)
		if err != nil {
			t.Fatalf("call %d: the file its answer names: %v", i, err)
		}
		switch {
		case out.TotalBytes > maxBytes:
			want := fmt.Sprintf("the output's first %d bytes in the file %s (the rest was not kept)", maxBytes, out.OutputFile)
			if fi.Size() != maxBytes || !strings.Contains(out.Output, want) {
				t.Errorf("call %d: %d bytes of %d in the file, marker %q; want the first %d and %q", i, fi.Size(), out.TotalBytes, marker(out.Output), maxBytes, want)
			}
		case fi.Size() != out.TotalBytes || !strings.Contains(out.Output, "full output in the file "+out.OutputFile):
			t.Errorf("call %d: %d bytes of %d in the file, marker %q", i, fi.Size(), out.TotalBytes, marker(out.Output))
		}
		files, total := outputFiles(t, dir)
		if files > maxFiles || total > maxBytes {
			t.Errorf("after call %d: %d files, %d bytes; want at most %d and %d", i, files, total, maxFiles, maxBytes)
		}
	}
	if err := tk.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after Close, the output files' directory: %v", err)
	}
}

// outputFiles counts the output files in dir and their bytes.
func outputFiles(t *testing.T, dir string) (int, int64) {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*.out"))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil {
			total += fi.Size()
		}
	}
	return len(matches), total
}

// marker returns the marker line of a trimmed view.
func marker(view string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, "[... ") {
			return l
		}
	}
	return ""
}
