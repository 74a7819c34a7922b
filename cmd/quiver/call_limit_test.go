package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/mcpserver"
)

// TestCallArgumentsCapped: `quiver call` reads at most the MCP server's
// request cap of arguments (one constant, mcpserver.DefaultMaxBodyBytes),
// whether they come on standard input or as an argument, and refuses
// more with an error naming the limit and the field that runs past it
// (issue 33: a 60 MB write_file from the CLI took 433 MB).
func TestCallArgumentsCapped(t *testing.T) {
	if maxArgumentBytes != mcpserver.DefaultMaxBodyBytes {
		t.Fatalf("the CLI's cap %d is not the MCP server's %d", maxArgumentBytes, mcpserver.DefaultMaxBodyBytes)
	}
	in := &countingReader{r: io.MultiReader(strings.NewReader(`{"path": "big.txt", "content": "`), endlessX{})}
	_, err := callArguments([]string{"write_file", "-"}, in)
	if err == nil || !strings.Contains(err.Error(), "larger than 4 MiB (4194304 bytes)") || !strings.Contains(err.Error(), `field "content" runs past it`) {
		t.Errorf("error %v, want one naming the 4 MiB limit and field content", err)
	}
	if in.n > maxArgumentBytes+1 {
		t.Errorf("read %d bytes of arguments, more than the cap and one", in.n)
	}
	big := `{"content": "` + strings.Repeat("x", maxArgumentBytes) + `"}`
	if _, err := callArguments([]string{"write_file", big}, nil); err == nil || !strings.Contains(err.Error(), `field "content"`) {
		t.Errorf("an argument of %d bytes: %v, want refused naming content", len(big), err)
	}
	fits := `{"path": "a", "content": "` + strings.Repeat("x", maxArgumentBytes-40) + `"}`
	if raw, err := callArguments([]string{"write_file", "-"}, strings.NewReader(fits)); err != nil || len(raw) != len(fits) {
		t.Errorf("arguments of %d bytes: %v, want them whole", len(fits), err)
	}
}

// TestFieldAtEnd: the field named is the top-level key whose value the
// prefix ends in, nested values included.
func TestFieldAtEnd(t *testing.T) {
	for prefix, want := range map[string]string{
		`{"path": "a", "content": "xxx`:       "content",
		`{"edits": [{"old_string": "a", "new`: "edits",
		`{"path": "a"}`:                       "",
		`{"path": "a", `:                      "",
		`not json`:                            "",
		`["a", "b`:                            "",
	} {
		if got := fieldAtEnd([]byte(prefix)); got != want {
			t.Errorf("fieldAtEnd(%q) = %q, want %q", prefix, got, want)
		}
	}
}

// TestCallTooLargeFromTheCommandLine: the refusal as a user sees it: exit
// status 2, the limit and the field on standard error, no file written.
func TestCallTooLargeFromTheCommandLine(t *testing.T) {
	t.Parallel()
	dir := workdir(t, nil)
	args := `{"path": "big.txt", "content": "` + strings.Repeat("x", maxArgumentBytes) + `"}`
	r := runCLI(t, dir, args, "--yes", "call", "write_file", "-")
	if r.code != exitUsage || !strings.Contains(r.stderr, "4 MiB") || !strings.Contains(r.stderr, `field "content"`) {
		t.Errorf("exit %d, stderr %q; want 2 naming 4 MiB and content", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); !os.IsNotExist(err) {
		t.Errorf("big.txt: %v, want it not written", err)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// endlessX is an endless run of 'x'.
type endlessX struct{}

func (endlessX) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
