package custom_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/provider/custom"
)

// sayForms is the same tool in both forms of quiver.toml.
var sayForms = map[string]string{
	"[[tools.custom]]": `
[[tools.custom]]
name = "say"
description = "Echo text"
command = "echo {text}"
params = [{ name = "text", type = "string", required = true }]
`,
	"[tools.custom.NAME]": `
[tools.custom.say]
description = "Echo text"
command = "echo {text}"

[tools.custom.say.parameters.text]
type = "string"
`,
}

// Both forms give the same tool, with the same single-pass, no-shell
// substitution and the same refusal of option-like values.
func TestBothFormsServeTheSameTool(t *testing.T) {
	cases := []struct {
		value, want, code string
	}{
		{"; rm -rf x", "exit_code: 0\n; rm -rf x\n", ""},
		{"$(id)", "exit_code: 0\n$(id)\n", ""},
		{"{text}", "exit_code: 0\n{text}\n", ""},
		{"a  b | c > d", "exit_code: 0\na  b | c > d\n", ""},
		{"--help", "", "INVALID_ARGUMENTS"},
	}
	for form, doc := range sayForms {
		t.Run(form, func(t *testing.T) {
			cfg, err := config.Parse("q.toml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			var specs []custom.Spec
			for _, c := range cfg.Tools.Custom {
				specs = append(specs, c.Spec())
			}
			if diff := cmp.Diff([]custom.Spec{say}, specs); diff != "" {
				t.Fatalf("definition (-want +got):\n%s", diff)
			}
			tk, _ := toolkit(t, specs, "say")
			for _, c := range cases {
				out, err := tk.Invoke(context.Background(), "say", map[string]any{"text": c.value})
				switch {
				case c.code != "" && (err == nil || !strings.Contains(err.Error(), c.code)):
					t.Errorf("%q: err %v, want %s", c.value, err, c.code)
				case c.code == "" && err != nil:
					t.Errorf("%q: %v", c.value, err)
				case c.code == "" && out.Content.String() != c.want:
					t.Errorf("%q: got %q, want %q", c.value, out.Content.String(), c.want)
				}
			}
		})
	}
}
