package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
	"github.com/quiverkit/quiver/workspace"
)

// runValidated validates args against tl's schema, as the pipeline does, and
// runs tl in a workspace at root.
func runValidated(t *testing.T, tl *tool.Tool, root string, args string) (tool.Result, error) {
	t.Helper()
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	shared := tool.NewScope(nil, nil)
	shared.Provide(workspace.Key.ID, ws)
	return tooltest.Call(context.Background(), tl, shared, args)
}

func readFileOut(t *testing.T, args string, dir string) (*ReadFileOutput, tool.Result) {
	t.Helper()
	res, err := runValidated(t, newReadFile(), dir, args)
	if err != nil {
		t.Fatal(err)
	}
	return res.Output.(*ReadFileOutput), res
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 1; i <= 2500; i++ {
		lines = append(lines, "line "+strings.Repeat("x", i%7))
	}
	files := map[string]string{
		"many.txt":  strings.Join(lines, "\n") + "\n",
		"crlf.txt":  "a\r\nb\r\n",
		"nonl.txt":  "one\ntwo",
		"empty.txt": "",
		"long.txt":  strings.Repeat("é", 2500) + "\nshort\n",
		"bin.dat":   "text\x00more",
		"wide.txt":  strings.Repeat(strings.Repeat("w", 1000)+"\n", 200),
		"bad.txt":   "ok \xff\xfe bytes\n",
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	rf := newReadFile()

	t.Run("numbered lines, default 2000, next offset", func(t *testing.T) {
		out := readFileOut1(t, `{"path":"many.txt"}`, dir)
		if out.StartLine != 1 || out.EndLine != 2000 || out.TotalLines != 2500 || !out.Truncated || out.NextOffset != 2001 {
			t.Errorf("window = %d-%d of %d, truncated %v next %d", out.StartLine, out.EndLine, out.TotalLines, out.Truncated, out.NextOffset)
		}
		if !strings.HasPrefix(out.Content, "     1\tline x\n     2\tline xx\n") {
			t.Errorf("content starts %q", out.Content[:40])
		}
		sum := sha256.Sum256([]byte(files["many.txt"]))
		if out.ContentSHA256 != hex.EncodeToString(sum[:]) {
			t.Error("content_sha256 is not the whole file's hash")
		}
	})
	t.Run("offset and limit", func(t *testing.T) {
		out, res := readFileOut(t, `{"path":"many.txt","offset":2499,"limit":10}`, dir)
		if out.Content != "  2499\tline \n  2500\tline x\n" || out.Truncated {
			t.Errorf("content %q truncated %v", out.Content, out.Truncated)
		}
		if !strings.Contains(res.String(), "2500\tline x") {
			t.Errorf("model view %q", res.String())
		}
	})
	t.Run("the 100 KB cap cuts and says where to continue", func(t *testing.T) {
		out, res := readFileOut(t, `{"path":"wide.txt"}`, dir)
		if len(out.Content) > readMaxBytes || !out.Truncated || out.NextOffset != out.EndLine+1 {
			t.Errorf("len %d truncated %v next %d end %d", len(out.Content), out.Truncated, out.NextOffset, out.EndLine)
		}
		if !strings.Contains(res.String(), "continue with offset=") {
			t.Error("the model is not told how to continue")
		}
	})
	t.Run("lines over 2000 characters are clipped", func(t *testing.T) {
		out := readFileOut1(t, `{"path":"long.txt"}`, dir)
		first, _, _ := strings.Cut(out.Content, "\n")
		if got := len([]rune(strings.SplitN(first, "\t", 2)[1])); got != readMaxLineRunes || out.ClippedLines != 1 {
			t.Errorf("clipped line has %d characters, clipped %d", got, out.ClippedLines)
		}
	})
	t.Run("CRLF, no final newline, empty, invalid UTF-8", func(t *testing.T) {
		if out := readFileOut1(t, `{"path":"crlf.txt"}`, dir); out.Content != "     1\ta\n     2\tb\n" {
			t.Errorf("crlf %q", out.Content)
		}
		if out := readFileOut1(t, `{"path":"nonl.txt"}`, dir); out.TotalLines != 2 {
			t.Errorf("nonl lines %d", out.TotalLines)
		}
		if out, res := readFileOut(t, `{"path":"empty.txt"}`, dir); out.TotalLines != 0 || !strings.Contains(res.String(), "is empty") {
			t.Errorf("empty: %q", res.String())
		}
		if out := readFileOut1(t, `{"path":"bad.txt"}`, dir); !strings.Contains(out.Content, "\uFFFD") {
			t.Errorf("invalid UTF-8 shown as %q", out.Content)
		}
	})
	t.Run("errors", func(t *testing.T) {
		for args, code := range map[string]tool.Code{
			`{"path":"bin.dat"}`:                tool.CodeExecutionFailed,
			`{"path":"many.txt","offset":9999}`: tool.CodeInvalidArguments,
			`{"path":"many.txt","offset":0}`:    tool.CodeInvalidArguments,
			`{"path":"../x"}`:                   tool.CodeSandboxViolation,
			`{"path":"missing"}`:                tool.CodeNotFound,
			`{"path":"."}`:                      tool.CodeExecutionFailed,
			`{"path":""}`:                       tool.CodeInvalidArguments,
		} {
			_, err := runValidated(t, rf, dir, args)
			if tool.CodeOf(err) != code {
				t.Errorf("%s: %v, want %s", args, err, code)
			}
		}
		_, err := runValidated(t, rf, dir, `{"path":"bin.dat"}`)
		if err == nil || !strings.Contains(err.Error(), "binary") {
			t.Errorf("binary error = %v", err)
		}
	})
}

func TestReadFileImages(t *testing.T) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	png.Encode(&buf, img)
	os.WriteFile(filepath.Join(dir, "dot.png"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "photo.jpg"), []byte("\xff\xd8\xff\xe0fake"), 0o644)
	os.WriteFile(filepath.Join(dir, "anim.gif"), []byte("GIF89a...."), 0o644)
	os.WriteFile(filepath.Join(dir, "pic.webp"), []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), 0o644)
	for name, mime := range map[string]string{"dot.png": "image/png", "photo.jpg": "image/jpeg", "anim.gif": "image/gif", "pic.webp": "image/webp"} {
		res, err := runValidated(t, newReadFile(), dir, `{"path":"`+name+`"}`)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Parts) != 2 || res.Parts[1].Type != tool.PartImage || res.Parts[1].MIMEType != mime {
			t.Errorf("%s: parts %+v", name, res.Parts)
		}
	}
}

// BenchmarkReadFileDeep reads 100 lines at line 900,000 of a 1,000,000-line
// file: one streaming pass, memory bounded by the window (see allocs/op).
func BenchmarkReadFileDeep(b *testing.B) {
	dir := b.TempDir()
	f, _ := os.Create(filepath.Join(dir, "big.txt"))
	for i := range 1_000_000 {
		f.WriteString("this is line number " + strings.Repeat("x", i%40) + "\n")
	}
	f.Close()
	ws, _ := workspace.Open(dir, workspace.Options{})
	defer ws.Close()
	scope := tool.NewScope(map[string]tool.Factory{workspace.Key.ID: func(context.Context) (any, error) { return ws, nil }}, nil)
	tc := tool.NewContext("b", "read_file", nil, scope)
	b.ReportAllocs()
	for b.Loop() {
		out, err := readFile(context.Background(), tc, ReadFileInput{Path: "big.txt", Offset: 900_000, Limit: 100})
		if err != nil || out.EndLine != 900_099 {
			b.Fatal(out, err)
		}
	}
}

func readFileOut1(t *testing.T, args, dir string) *ReadFileOutput {
	t.Helper()
	out, _ := readFileOut(t, args, dir)
	return out
}
