package cli

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// rgSample is real rg --json output: plain text, escapes, a tab, a quote,
// bytes that are not UTF-8 (base64), a surrogate pair, and the statistics
// lines that are skipped.
var rgSample = []string{
	`{"type":"begin","data":{"path":{"text":"docs/a \"b\".go"}}}`,
	`{"type":"match","data":{"path":{"text":"docs/a \"b\".go"},"lines":{"text":"\tfunc New() {} // \u00e9 \ud83d\ude00\n"},"line_number":12,"absolute_offset":40,"submatches":[{"match":{"text":"func New"},"start":1,"end":9}]}}`,
	`{"type":"context","data":{"path":{"text":"docs/a \"b\".go"},"lines":{"text":"}\r\n"},"line_number":13,"absolute_offset":60,"submatches":[]}}`,
	`{"type":"match","data":{"path":{"bytes":"Y2Fm6S50eHQ="},"lines":{"bytes":"ZnVuYyBOZXcg/wo="},"line_number":1,"absolute_offset":0,"submatches":[{"match":{"text":"func New"},"start":0,"end":8}]}}`,
	`{"type":"end","data":{"path":{"text":"x"},"binary_offset":null,"stats":{"elapsed":{"secs":0,"nanos":1,"human":"0s"},"searches":1,"searches_with_match":1,"bytes_searched":1,"bytes_printed":1,"matched_lines":1,"matches":1}}}`,
	`{"data":{"elapsed_total":{"human":"0.001s","nanos":1,"secs":0},"stats":{"matched_lines":1}},"type":"summary"}`,
}

// rgStd is the same line decoded by encoding/json, the reference.
type rgStd struct {
	Type string `json:"type"`
	Data struct {
		Path       rgStdText `json:"path"`
		Lines      rgStdText `json:"lines"`
		LineNumber int       `json:"line_number"`
		Submatches []struct {
			Start int `json:"start"`
		} `json:"submatches"`
	} `json:"data"`
}

type rgStdText struct {
	Text  *string `json:"text"`
	Bytes []byte  `json:"bytes"`
}

func (t rgStdText) get() []byte {
	if t.Text != nil {
		return []byte(*t.Text)
	}
	return t.Bytes
}

// fromStd is what parseRGLine should give for a line encoding/json decoded.
func fromStd(s rgStd) rgLine {
	l := rgLine{kind: s.Type, firstStart: -1}
	switch s.Type {
	case "begin":
		l.path = s.Data.Path.get()
	case "match", "context":
		l.path, l.text, l.lineNumber = s.Data.Path.get(), s.Data.Lines.get(), s.Data.LineNumber
		if s.Type == "match" && len(s.Data.Submatches) > 0 {
			l.firstStart = s.Data.Submatches[0].Start
		}
	default:
		l.kind = s.Type
	}
	return l
}

var cmpLine = cmp.Comparer(func(a, b rgLine) bool {
	return a.kind == b.kind && bytes.Equal(a.path, b.path) && bytes.Equal(a.text, b.text) &&
		a.lineNumber == b.lineNumber && a.firstStart == b.firstStart
})

func TestParseRGLineAgreesWithEncodingJSON(t *testing.T) {
	for _, line := range rgSample {
		var std rgStd
		if err := json.Unmarshal([]byte(line), &std); err != nil {
			t.Fatal(err)
		}
		got, err := parseRGLine([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		want := fromStd(std)
		if want.kind == "summary" || want.kind == "end" {
			want = rgLine{kind: got.kind, firstStart: -1} // skipped: only the kind matters, if anything
		}
		if diff := cmp.Diff(want, got, cmpLine); diff != "" {
			t.Errorf("%s (-encoding/json +parseRGLine):\n%s", line, diff)
		}
	}
}

// FuzzParseRGLine builds lines in rg's shape from arbitrary field values,
// encoded by encoding/json (which escapes differently from rg: \u003c for
// '<', say, so escapes get exercised), and requires parseRGLine to read
// the values back; and it feeds the raw input too, which must not panic.
func FuzzParseRGLine(f *testing.F) {
	f.Add(uint8(1), "docs/a \"b\".go", "\tfunc New() {} // é 😀\n", false, uint32(12), uint32(1), []byte(rgSample[1]))
	f.Add(uint8(2), "caf\xe9.txt", "x\xff\n", true, uint32(1), uint32(0), []byte(rgSample[3]))
	f.Add(uint8(0), "<&>\u2028", "", false, uint32(0), uint32(0), []byte("{"))
	f.Fuzz(func(t *testing.T, kindN uint8, path, text string, asBytes bool, lineNumber, start uint32, raw []byte) {
		parseRGLine(raw) // must not panic
		kind := []string{"begin", "match", "context"}[kindN%3]
		enc := func(s string) string {
			if asBytes || !utf8.ValidString(s) {
				b, _ := json.Marshal([]byte(s))
				return `{"bytes":` + string(b) + `}`
			}
			b, _ := json.Marshal(s)
			return `{"text":` + string(b) + `}`
		}
		line := `{"type":"` + kind + `","data":{"path":` + enc(path)
		want := rgLine{kind: kind, path: []byte(path), firstStart: -1}
		if kind != "begin" {
			line += `,"lines":` + enc(text) + `,"line_number":` + strconv.Itoa(int(lineNumber)) + `,"absolute_offset":0,"submatches":[`
			want.text, want.lineNumber = []byte(text), int(lineNumber)
			if kind == "match" {
				line += `{"match":{"text":"x"},"start":` + strconv.Itoa(int(start)) + `,"end":1}`
				want.firstStart = int(start)
			}
			line += `]`
		}
		line += `}}`
		got, err := parseRGLine([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if diff := cmp.Diff(want, got, cmpLine); diff != "" {
			t.Errorf("%s (-want +got):\n%s", line, diff)
		}
	})
}
