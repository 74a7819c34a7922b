package edit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeEncodeRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		content string
		text    string
		format  Format
	}{
		{"format: LF stays LF", "a\nb\n", "a\nb\n", Format{}},
		{"format: CRLF throughout becomes LF for matching", "a\r\nb\r\n", "a\nb\n", Format{CRLF: true}},
		{"format: mixed endings are left alone", "a\r\nb\n", "a\r\nb\n", Format{mixed: true}},
		{"format: a byte order mark is set aside", "\uFEFFa\r\n", "a\n", Format{BOM: true, CRLF: true}},
		{"format: a lone CR is not a line ending", "a\rb\n", "a\rb\n", Format{}},
		{"format: empty", "", "", Format{}},
		{"format: a BOM alone", "\uFEFF", "", Format{BOM: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, f := Decode([]byte(tt.content))
			if text != tt.text {
				t.Errorf("text %q, want %q", text, tt.text)
			}
			if diff := cmp.Diff(tt.format, f, cmp.AllowUnexported(Format{})); diff != "" {
				t.Errorf("format (-want +got):\n%s", diff)
			}
			if back := string(f.Encode(text)); back != tt.content {
				t.Errorf("Encode(Decode(x)) = %q, want %q", back, tt.content)
			}
		})
	}
}

func TestNormalizeModelStrings(t *testing.T) {
	_, crlf := Decode([]byte("a\r\n"))
	_, lf := Decode([]byte("a\n"))
	_, mixed := Decode([]byte("a\r\nb\n"))
	_, withBOM := Decode([]byte("\uFEFFa\n"))
	for _, c := range []struct {
		name string
		f    Format
		in   string
		want string
	}{
		{"normalize: CRLF from the model in a CRLF file", crlf, "x\r\ny", "x\ny"},
		{"normalize: CRLF from the model in an LF file", lf, "x\r\ny", "x\ny"},
		{"normalize: a mixed file keeps the model's endings", mixed, "x\r\ny\n", "x\r\ny\n"},
		{"normalize: a BOM the model copied is dropped", withBOM, "\uFEFFa", "a"},
	} {
		if got := c.f.Normalize(c.in); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
