package custom

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTemplateRefusesWhatNeedsAShell(t *testing.T) {
	for _, tc := range []struct{ name, command, want string }{
		{"pipe", "grep {q} | head", "simple command"},
		{"list", "echo {q}; rm -rf x", "exactly one command"},
		{"and list", "make && echo {q}", "simple command"},
		{"redirection", "echo {q} > out.txt", "redirections"},
		{"background", "sleep {q} &", "&"},
		{"variable", "echo $HOME {q}", "not supported"},
		{"variable in double quotes", `echo "$HOME" {q}`, "inside double quotes"},
		{"command substitution", "echo $(id) {q}", "not supported"},
		{"backquotes", "echo `id` {q}", "not supported"},
		{"assignment", "FOO=1 echo {q}", "assignments"},
		{"glob", "ls *.go {q}", "globs"},
		{"placeholder program", "{q} --help", "program"},
		{"empty", "", "exactly one command"},
		{"syntax error", "echo 'unterminated {q}", "command template"},
		{"subshell", "(echo {q})", "simple command"},
		{"brace expansion", "echo -{r,f} {q}", "brace expansion"},
		{"brace sequence", "echo {1..3} {q}", "brace expansion"},
		{"dollar single quotes", `echo $'\x72m' {q}`, "not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTemplate(tc.command)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseTemplate(%q) = %v, want an error containing %q", tc.command, err, tc.want)
			}
		})
	}
}

func TestExpandSubstitutesOnceIntoOneWord(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command string
		values  map[string]string
		want    []string
	}{
		{"semicolon stays literal", "echo {q}", map[string]string{"q": "; rm -rf x"}, []string{"echo", "; rm -rf x"}},
		{"command substitution stays literal", "echo {q}", map[string]string{"q": "$(id)"}, []string{"echo", "$(id)"}},
		{"backquotes stay literal", "echo {q}", map[string]string{"q": "`id`"}, []string{"echo", "`id`"}},
		{"spaces stay one word", "grep -n {q} .", map[string]string{"q": "a b  c"}, []string{"grep", "-n", "a b  c", "."}},
		{"placeholder in value not re-substituted", "echo {a} {b}", map[string]string{"a": "{b}", "b": "B"}, []string{"echo", "{b}", "B"}},
		{"value naming itself", "echo {a}", map[string]string{"a": "{a}{a}"}, []string{"echo", "{a}{a}"}},
		{"embedded placeholder", "go test -run={pat} ./...", map[string]string{"pat": "-x y"}, []string{"go", "test", "-run=-x y", "./..."}},
		{"missing optional drops the word", "fmt --width={w} {file}", map[string]string{"file": "a.txt"}, []string{"fmt", "a.txt"}},
		{"quotes removed at load", `echo "a b" 'c {q}' d\ e`, map[string]string{"q": "Q"}, []string{"echo", "a b", "c Q", "d e"}},
		{"escaped dollar in double quotes", `echo "\$x" {q}`, map[string]string{"q": "1"}, []string{"echo", "$x", "1"}},
		{"quoted glob is literal", `ls '*.go' {q}`, map[string]string{"q": "x"}, []string{"ls", "*.go", "x"}},
		{"newline in value", "echo {q}", map[string]string{"q": "a\nb"}, []string{"echo", "a\nb"}},
		{"escapes decoded as the shell does", `r\m "a\b" ~/x {} {q}`, map[string]string{"q": "Q"}, []string{"rm", `a\b`, "~/x", "{}", "Q"}},
		{"repeated placeholder", "cp {f} {f}.bak", map[string]string{"f": "x"}, []string{"cp", "x", "x.bak"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := ParseTemplate(tc.command)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tmpl.Expand(tc.values, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Expand (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpandRefusesOptionValues(t *testing.T) {
	tmpl, err := ParseTemplate("cat {file}")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"--output=/etc/x", "-rf", "-"} {
		_, err := tmpl.Expand(map[string]string{"file": v}, func(string) bool { return false })
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Param != "file" {
			t.Errorf("value %q: err %v, want an OptionError naming file", v, err)
		}
	}
	got, err := tmpl.Expand(map[string]string{"file": "--version"}, func(p string) bool { return p == "file" })
	if err != nil || !cmp.Equal(got, []string{"cat", "--version"}) {
		t.Errorf("allowed option: %q, %v", got, err)
	}
}

func TestParamsInOrderOfFirstUse(t *testing.T) {
	tmpl, err := ParseTemplate("x --a={b} {a} {b} {c}")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b", "a", "c"}, tmpl.Params()); diff != "" {
		t.Error(diff)
	}
}

// FuzzParseTemplate checks that no template panics the parser and that
// substitution never changes the number of words nor re-reads a value.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"echo {a}", "grep -n {a} {b}", `echo "x {a}" 'y'`, "a | b", "echo $(id)", "x --f={a}{b}", "{a}", `e\ {a}`} {
		f.Add(s, "; rm -rf x $(id) {b}")
	}
	f.Fuzz(func(t *testing.T, command, value string) {
		tmpl, err := ParseTemplate(command)
		if err != nil {
			return
		}
		values := map[string]string{}
		for _, p := range tmpl.Params() {
			values[p] = value
		}
		argv, err := tmpl.Expand(values, func(string) bool { return true })
		if err != nil {
			t.Fatalf("Expand with options allowed: %v", err)
		}
		if len(argv) != len(tmpl.words) {
			t.Fatalf("%q: %d words from a template of %d", command, len(argv), len(tmpl.words))
		}
		for i, w := range tmpl.words {
			n := len(w.params())
			if n > 0 && strings.Count(argv[i], value) < n && value != "" {
				t.Fatalf("%q word %d = %q: value %q not substituted %d times", command, i, argv[i], value, n)
			}
		}
	})
}
