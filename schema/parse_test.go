package schema

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var parseCases = []string{
	`{}`, `{"a":1}`, `{"a":"b","c":[1,2,{"d":null}],"e":true,"f":false}`,
	` { "x" : -0.5e+3 , "y" : 1E2 } `, `{"s":"\u00e9\n\t\"\\\/\ud83d\ude00"}`,
	`{"bad":"\ud800"}`, `{"dup":1,"dup":2}`, "{\"raw\":\"caf\xc3\xa9 \xff\"}",
	`[1]`, `"x"`, `123`, `null`, `true`, `{"a":}`, `{"a":1,}`, `{"a" 1}`, `{`, `{"a":01}`,
	`{"a":1} x`, `{"a":"\x"}`, "{\"a\":\"\x01\"}", `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":[1,]}`,
	`{"a":nul}`, ``, `   `, `{"a":1e999}`,
}

// TestParseObjectMatchesEncodingJSON: same values, and an error exactly
// where encoding/json gives one.
func TestParseObjectMatchesEncodingJSON(t *testing.T) {
	for _, in := range parseCases {
		checkAgainstEncodingJSON(t, []byte(in))
	}
}

func FuzzParseObject(f *testing.F) {
	for _, in := range parseCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkAgainstEncodingJSON(t, data) })
}

func checkAgainstEncodingJSON(t *testing.T, data []byte) {
	t.Helper()
	got, err := ParseObject(data)
	var want any
	werr := json.Unmarshal(data, &want)
	_, isObject := want.(map[string]any)
	switch {
	case werr != nil:
		if err == nil {
			t.Fatalf("%q: ParseObject accepted what encoding/json rejects (%v)", data, werr)
		}
	case !isObject:
		if !errors.Is(err, ErrNotObject) {
			t.Fatalf("%q: err = %v, want ErrNotObject", data, err)
		}
	default:
		if err != nil {
			t.Fatalf("%q: ParseObject: %v; encoding/json accepts it", data, err)
		}
		if diff := cmp.Diff(want, any(got)); diff != "" {
			t.Fatalf("%q: (-encoding/json +ParseObject)\n%s", data, diff)
		}
	}
}

func BenchmarkParseObject(b *testing.B) {
	data := []byte(`{"name":"quiver","count":3,"loud":true}`)
	b.Run("ParseObject", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseObject(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
