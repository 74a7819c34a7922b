package tools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quiverkit/quiver/tool"
)

//go:embed read_file.md
var readFileDescription string

// Limits of one read_file answer.
const (
	readDefaultLines  = 2000
	readMaxBytes      = 100 * 1024
	readMaxLineRunes  = 2000
	readMaxImageBytes = 10 << 20
)

// ReadFileInput is read_file's input.
type ReadFileInput struct {
	Path   string `json:"path" jsonschema:"the file to read, relative to the workspace root; binary files are refused, images come back as images" minLength:"1"`
	Offset int    `json:"offset,omitempty" jsonschema:"the 1-based line to start at (default 1); a cut answer names the offset to continue from" minimum:"1"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many lines to return (default 2000); an answer holds at most 2,000 lines and 100 KB, and lines over 2,000 characters are clipped" minimum:"1"`
}

// ReadFileOutput is read_file's typed output.
type ReadFileOutput struct {
	Path          string `json:"path"`
	Content       string `json:"content"`    // numbered lines, cat -n style
	StartLine     int    `json:"start_line"` // first line shown (0 when none)
	EndLine       int    `json:"end_line"`   // last line shown (0 when none)
	TotalLines    int    `json:"total_lines"`
	Size          int64  `json:"size"`
	Truncated     bool   `json:"truncated"`             // lines after end_line exist and were not shown
	NextOffset    int    `json:"next_offset,omitempty"` // the offset to continue from, when truncated
	ClippedLines  int    `json:"clipped_lines,omitempty"`
	ContentSHA256 string `json:"content_sha256"` // of the whole file
	MIMEType      string `json:"mime_type,omitempty"`
	Image         []byte `json:"-"` // set for images
}

// ReadFile is a typed reference to read_file, for quiver.Call.
var ReadFile = tool.RefTo[ReadFileInput, *ReadFileOutput]("read_file")

func newReadFile() *tool.Tool {
	return withPathArgs(tool.Func("read_file", readFileDescription, readFile, summaryOf("path"),
		tool.InProcess(),
		tool.ReadOnly(),
		tool.WithSubjects(func(in ReadFileInput) []tool.Subject { return tool.PathSubject(in.Path) })),
		onePath("path", aFile, func(in ReadFileInput) string { return in.Path }))
}

func readFile(ctx context.Context, tc tool.Context, in ReadFileInput) (*ReadFileOutput, error) {
	ws, rel, err := argInWorkspace(ctx, tc, "path", in.Path, aFile)
	if err != nil {
		return nil, err
	}
	f, err := ws.OpenReadContext(ctx, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "stat %s: %w", rel, err)
	}
	out := &ReadFileOutput{Path: rel, Size: fi.Size()}
	br := bufio.NewReaderSize(f, 64*1024)
	if mime := sniffImage(br); mime != "" {
		out, err := readImage(br, out, mime)
		if err == nil {
			recordRead(ctx, tc, out.Path, out.ContentSHA256)
		}
		return out, err
	}
	h := sha256.New()
	if err := scanLines(ctx, io.TeeReader(br, h), in, out); err != nil {
		return nil, err
	}
	out.ContentSHA256 = hex.EncodeToString(h.Sum(nil))
	recordRead(ctx, tc, out.Path, out.ContentSHA256)
	return out, nil
}

// sniffImage returns the MIME type of an image format models accept.
func sniffImage(br *bufio.Reader) string {
	head, _ := br.Peek(12)
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

func readImage(r io.Reader, out *ReadFileOutput, mime string) (*ReadFileOutput, error) {
	if out.Size > readMaxImageBytes {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "%s is a %s image of %d bytes; images over %d bytes are not returned",
			out.Path, mime, out.Size, readMaxImageBytes)
	}
	data, err := io.ReadAll(io.LimitReader(r, readMaxImageBytes+1))
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "read %s: %w", out.Path, err)
	}
	sum := sha256.Sum256(data)
	out.MIMEType, out.Image, out.ContentSHA256 = mime, data, hex.EncodeToString(sum[:])
	return out, nil
}

var errBinary = errors.New("binary file")

// scanLines streams the file once: every line is counted and hashed (through
// the TeeReader), and only the lines of the requested window are kept, so
// reading line 10,000,000 of a 1 GB file holds one window in memory.
func scanLines(ctx context.Context, r io.Reader, in ReadFileInput, out *ReadFileOutput) error {
	first := max(in.Offset, 1)
	limit := in.Limit
	if limit == 0 {
		limit = readDefaultLines
	}
	br := bufio.NewReaderSize(r, 64*1024)
	var content strings.Builder
	line, shown := 0, 0
	for {
		text, clipped, err := readLine(br)
		if errors.Is(err, errBinary) {
			return tool.Errorf(tool.CodeExecutionFailed, "%s is a binary file (it contains NUL bytes) and cannot be shown as text", in.Path)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return tool.Errorf(tool.CodeExecutionFailed, "read %s: %w", in.Path, err)
		}
		if text == nil && errors.Is(err, io.EOF) {
			break
		}
		line++
		if line%65536 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if line >= first && shown < limit && !out.Truncated {
			entry := formatLine(line, text)
			if content.Len()+len(entry) > readMaxBytes && shown > 0 {
				out.Truncated = true
			} else {
				content.WriteString(entry)
				shown++
				if out.StartLine == 0 {
					out.StartLine = line
				}
				out.EndLine = line
				if clipped {
					out.ClippedLines++
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	out.TotalLines = line
	out.Content = content.String()
	if out.EndLine < out.TotalLines && out.EndLine >= first-1 && shown > 0 {
		out.Truncated = true
		out.NextOffset = out.EndLine + 1
	}
	if first > line && line > 0 {
		return tool.Errorf(tool.CodeInvalidArguments, "offset %d is past the end of %s, which has %d lines", first, in.Path, line)
	}
	return nil
}

// readLine returns one line without its newline, its first readMaxLineRunes
// characters only (clipped reports the cut). text is nil at the end of input.
func readLine(br *bufio.Reader) (text []byte, clipped bool, err error) {
	for {
		chunk, rerr := br.ReadSlice('\n')
		if bytes.IndexByte(chunk, 0) >= 0 {
			return nil, false, errBinary
		}
		if len(text) < readMaxLineRunes*utf8.UTFMax {
			text = append(text, chunk...)
		} else if len(chunk) > 0 {
			clipped = true
		}
		switch {
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case rerr != nil:
			if len(text) == 0 && errors.Is(rerr, io.EOF) {
				return nil, false, io.EOF
			}
			return trimLine(text, &clipped), clipped, rerr
		}
		return trimLine(text, &clipped), clipped, nil
	}
}

func trimLine(b []byte, clipped *bool) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if b == nil {
		b = []byte{}
	}
	if utf8.RuneCount(b) > readMaxLineRunes {
		n, i := 0, 0
		for i < len(b) && n < readMaxLineRunes {
			_, size := utf8.DecodeRune(b[i:])
			i += size
			n++
		}
		b = b[:i]
		*clipped = true
	}
	return b
}

func formatLine(n int, text []byte) string {
	s := strings.ToValidUTF8(string(text), "\uFFFD")
	num := strconv.Itoa(n)
	if len(num) < 6 {
		num = strings.Repeat(" ", 6-len(num)) + num
	}
	return num + "\t" + s + "\n"
}

// LinesNumbered reports that the rendered text numbers its lines already
// (images aside), so that tool_output_cache does not number them again
// (outputcache.NumberedLines).
func (o *ReadFileOutput) LinesNumbered() bool { return o != nil && o.Image == nil }

// Render shows the numbered lines, and says how to continue when cut.
func (o *ReadFileOutput) Render() tool.Result {
	if o.Image != nil {
		return tool.Result{Parts: []tool.Part{
			{Type: tool.PartText, Text: fmt.Sprintf("%s: %s image, %d bytes", o.Path, o.MIMEType, o.Size)},
			tool.Image(o.MIMEType, o.Image),
		}}
	}
	var b strings.Builder
	switch {
	case o.TotalLines == 0:
		fmt.Fprintf(&b, "(%s is empty)\n", o.Path)
	default:
		b.WriteString(o.Content)
	}
	if o.ClippedLines > 0 {
		fmt.Fprintf(&b, "(%d lines were longer than %d characters and were clipped)\n", o.ClippedLines, readMaxLineRunes)
	}
	if o.Truncated {
		fmt.Fprintf(&b, "(showing lines %d-%d of %d; continue with offset=%d)\n", o.StartLine, o.EndLine, o.TotalLines, o.NextOffset)
	}
	return tool.Text(strings.TrimSuffix(b.String(), "\n"))
}
