package audit_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/audit"
)

func TestArgumentsRedactSecrets(t *testing.T) {
	r := audit.NewRedactor("pin")
	tests := []struct {
		name, in, want string
	}{
		{"a key that names a secret hides its value, whatever its type",
			`{"path":"a.txt","api_key":"sk-1","password":{"x":1},"token":7}`,
			`{"api_key":"[REDACTED]","password":"[REDACTED]","path":"a.txt","token":"[REDACTED]"}`},
		{"at any depth, in any spelling of the name",
			`{"headers":{"X-Api-Key":"k1","Authorization":"Bearer b1","Accept":"text/html"},"OPENAI_API_KEY":"k2"}`,
			`{"OPENAI_API_KEY":"[REDACTED]","headers":{"Accept":"text/html","Authorization":"[REDACTED]","X-Api-Key":"[REDACTED]"}}`},
		{"the operator's own names add to the defaults",
			`{"card_pin":"1234","pinned":true,"name":"x"}`,
			`{"card_pin":"[REDACTED]","name":"x","pinned":"[REDACTED]"}`},
		{"exec_command's env entries NAME=VALUE",
			`{"command":"make","env":["GITHUB_TOKEN=ghp_1","DB_PASSWORD='a b'","GOFLAGS=-v"]}`,
			`{"command":"make","env":["GITHUB_TOKEN=[REDACTED]","DB_PASSWORD=[REDACTED]","GOFLAGS=-v"]}`},
		{"a command line: assignments, headers, queries and options that name secrets",
			`{"command":"API_TOKEN=t1 curl -H 'Authorization: Bearer b2' 'https://x.example/?api_key=k3&q=go' && mysql --password p4 -u root"}`,
			`{"command":"API_TOKEN=[REDACTED] curl -H 'Authorization: [REDACTED]' 'https://x.example/?api_key=[REDACTED]\u0026q=go' \u0026\u0026 mysql --password [REDACTED] -u root"}`},
		{"an argument vector: the word after an option that names a secret",
			`{"argv":["mysql","--password","p5","--user=root","--api-key=k6"]}`,
			`{"argv":["mysql","--password","[REDACTED]","--user=root","--api-key=[REDACTED]"]}`},
		{"secrets in file content written as config or JSON",
			`{"path":"app.env","content":"HOST=db\nSECRET_KEY=s7\n{\"token\": \"s8\"}\n"}`,
			`{"content":"HOST=db\nSECRET_KEY=[REDACTED]\n{\"token\": [REDACTED]}\n","path":"app.env"}`},
		{"what names no secret is kept as it is, numbers exactly",
			`{"command":"go test ./... -run TestX","timeout_secs":120,"n":1e400,"background":false,"workdir":null}`,
			`{"background":false,"command":"go test ./... -run TestX","n":1e400,"timeout_secs":120,"workdir":null}`},
		{"text that is not JSON is quoted as one string, redacted",
			`{"password": "p9", oops`,
			`"{\"password\": [REDACTED], oops"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(r.Arguments([]byte(tt.in)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArgumentsAreBounded(t *testing.T) {
	r := audit.NewRedactor()
	content := strings.Repeat("x", 5<<20)
	sum := sha256.Sum256([]byte(content))
	raw, _ := json.Marshal(map[string]any{"path": "big.txt", "content": content})
	got := r.Arguments(raw)
	if len(got) > 2*audit.MaxString {
		t.Errorf("a 5 MB argument gives a %d-byte record", len(got))
	}
	var m map[string]string
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("x", audit.MaxString) + fmt.Sprintf("…[cut: %d bytes in all, sha256 %x]", len(content), sum)
	if m["content"] != want || m["path"] != "big.txt" {
		t.Errorf("content %.80q… (%d bytes), path %q", m["content"], len(m["content"]), m["path"])
	}

	wide := make([]int, 5000)
	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	many := map[string]string{}
	for i := range 200 {
		many[fmt.Sprintf("k%03d", i)] = strings.Repeat("v", 900)
	}
	for name, v := range map[string]any{"a long list": wide, "many long strings": many} {
		raw, _ := json.Marshal(map[string]any{"v": v})
		if got := r.Arguments(raw); len(got) > 2*audit.MaxTotal {
			t.Errorf("%s: a %d-byte argument gives a %d-byte record", name, len(raw), len(got))
		}
	}
	if got := string(r.Arguments([]byte(`{"v":` + deep + `}`))); !strings.Contains(got, "nested deeper than 16") {
		t.Errorf("deep nesting: %s", got)
	}
}

func TestArgv(t *testing.T) {
	r := audit.NewRedactor()
	got := r.Argv([]string{"curl", "-H", "Authorization: Bearer abc", "--token", "t1", "https://x/?access_key=a1", strings.Repeat("y", 2000)})
	want := []string{"curl", "-H", "Authorization: [REDACTED]", "--token", "[REDACTED]", "https://x/?access_key=[REDACTED]",
		audit.Clip(strings.Repeat("y", 2000), audit.MaxString)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
}

// FuzzArguments holds Arguments to its contract on any input: valid JSON
// out, and bounded whatever came in.
func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"password":"x","env":["TOKEN=y"]}`, `[[[[1]]]]`, `"str"`, `{"a":`, "\xff\xfe", `{"argv":["--secret","v"]}`} {
		f.Add([]byte(s))
	}
	r := audit.NewRedactor()
	f.Fuzz(func(t *testing.T, raw []byte) {
		out := r.Arguments(raw)
		if !json.Valid(out) {
			t.Fatalf("%q gives invalid JSON %q", raw, out)
		}
		if len(out) > 256<<10 {
			t.Fatalf("%d bytes in give %d bytes out", len(raw), len(out))
		}
	})
}

// FuzzSecretsNeverReachTheRecord: a value given under a secret name, as a
// key, an environment entry or an option's next word, is not in the record.
func FuzzSecretsNeverReachTheRecord(f *testing.F) {
	f.Add("api_key", "sk-live-123456")
	f.Add("GITHUB_TOKEN", "ghp_abcdefgh")
	f.Add("--password", "hunter2hunter2")
	f.Add("X-Auth-Token", `a"b\c d`)
	r := audit.NewRedactor()
	f.Fuzz(func(t *testing.T, name, value string) {
		if !r.Secret(name) || len(value) < 6 || strings.Contains(name, value) || strings.Contains(audit.Redacted, value) {
			return
		}
		cases := []map[string]any{
			{name: value},
			{"nested": []any{map[string]any{name: value}}},
		}
		if !strings.Contains(name, "=") { // "--password=" has a value of its own: the empty one
			cases = append(cases, map[string]any{"argv": []any{"prog", "-" + strings.TrimLeft(name, "-"), value}})
		}
		for _, args := range cases {
			raw, err := json.Marshal(args)
			if err != nil {
				return
			}
			out := string(r.Arguments(raw))
			var back any
			if err := json.Unmarshal([]byte(out), &back); err != nil {
				t.Fatal(err)
			}
			if flat := fmt.Sprint(back); strings.Contains(flat, value) && !strings.Contains(flat, "cut:") {
				t.Fatalf("%s=%q reached the record: %s", name, value, out)
			}
		}
	})
}
