package shell

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
)

func TestSimpleCommands(t *testing.T) {
	tests := []struct {
		name string
		line string
		want [][]string
	}{
		{"one command", "git status", [][]string{{"git", "status"}}},
		{"and-list: each side", "git status && rm -rf x", [][]string{{"git", "status"}, {"rm", "-rf", "x"}}},
		{"semicolon, or-list, pipeline", "a; b || c | d", [][]string{{"a"}, {"b"}, {"c"}, {"d"}}},
		{"quotes are removed", `echo 'a b' "c d" e\ f`, [][]string{{"echo", "a b", "c d", "e f"}}},
		{"double-quote escapes are removed", `echo "a\"b\\c\$d"`, [][]string{{"echo", `a"b\c$d`}}},
		{"command substitution: outer then inner", "git status; $(echo rm) -rf x", [][]string{{"git", "status"}, {"$(echo rm)", "-rf", "x"}, {"echo", "rm"}}},
		{"backticks", "echo `whoami`", [][]string{{"echo", "$(whoami)"}, {"whoami"}}},
		{"variable as command name stays source text", "X=rm; $X -rf x", [][]string{{"$X", "-rf", "x"}}},
		{"assignment alone is not a command", "X=1", nil},
		{"assignment with substitution", "X=$(rm -rf x)", [][]string{{"rm", "-rf", "x"}}},
		{"subshell and block", "(cd a && make); { ls; }", [][]string{{"cd", "a"}, {"make"}, {"ls"}}},
		{"process substitution", "diff <(ls a) >(tee b)", [][]string{{"diff", "<(ls a)", ">(tee b)"}, {"ls", "a"}, {"tee", "b"}}},
		{"function body", "f() { rm -rf x; }; f", [][]string{{"rm", "-rf", "x"}, {"f"}}},
		{"if, while, for, case", "if a; then b; fi; while c; do d; done; for i in 1; do e; done; case x in y) g;; esac",
			[][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"g"}}},
		{"here-document substitution", "cat <<EOF\n$(rm -rf x)\nEOF\n", [][]string{{"cat"}, {"rm", "-rf", "x"}}},
		{"test clause substitution", "[[ -n $(id) ]]", [][]string{{"id"}}},
		{"glob is not literal", "rm *.go", [][]string{{"rm", "*.go"}}},
		{"brace expansion is not literal", "rm -{r,f} {1..3}", [][]string{{"rm", "-{r,f}", "{1..3}"}}},
		{"a lone {} is literal", "echo {} {x}", [][]string{{"echo", "{}", "{x}"}}},
		{"declarations are commands", "export A=1 B=$(id)", [][]string{{"export", "A=1", "B=$(id)"}, {"id"}}},
		{"eval looks inside", `eval "rm -rf x"`, [][]string{{"eval", "rm -rf x"}, {"rm", "-rf", "x"}}},
		{"sh -c looks inside", `bash -ec 'git status; rm -rf x'`, [][]string{{"bash", "-ec", "git status; rm -rf x"}, {"git", "status"}, {"rm", "-rf", "x"}}},
		{"sh with a file does not", "sh script.sh", [][]string{{"sh", "script.sh"}}},
		{"env wrapper", "env -i A=1 -- rm x", [][]string{{"env", "-i", "A=1", "--", "rm", "x"}, {"rm", "x"}}},
		{"env -S", "env -S 'rm -rf x'", [][]string{{"env", "-S", "rm -rf x"}, {"rm", "-rf", "x"}}},
		{"timeout: options and duration", "timeout -s KILL 5 rm x", [][]string{{"timeout", "-s", "KILL", "5", "rm", "x"}, {"rm", "x"}}},
		{"xargs", "ls | xargs -n 1 rm -f", [][]string{{"ls"}, {"xargs", "-n", "1", "rm", "-f"}, {"rm", "-f"}}},
		{"nested wrappers", "nice -n 5 nohup rm x", [][]string{{"nice", "-n", "5", "nohup", "rm", "x"}, {"nohup", "rm", "x"}, {"rm", "x"}}},
		{"find -exec", `find . -name '*.o' -exec rm {} \;`, [][]string{{"find", ".", "-name", "*.o", "-exec", "rm", "{}", ";"}, {"rm", "{}"}}},
		{"command -v does not run", "command -v rm", [][]string{{"command", "-v", "rm"}}},
		{"command runs", "command rm x", [][]string{{"command", "rm", "x"}, {"rm", "x"}}},
		{"flock -c", "flock /tmp/l -c 'rm x'", [][]string{{"flock", "/tmp/l", "-c", "rm x"}, {"rm", "x"}}},
		{"watch runs its words through sh", "watch -n 1 'rm x; ls'", [][]string{{"watch", "-n", "1", "rm x; ls"}, {"rm", "x"}, {"ls"}}},
		{"path to a wrapper", "/usr/bin/env rm x", [][]string{{"/usr/bin/env", "rm", "x"}, {"rm", "x"}}},
		{"non-literal wrapper args are not looked into", "env $CMD", [][]string{{"env", "$CMD"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SimpleCommands(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SimpleCommands(%q) (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func TestSimpleCommandsEvalNestingIsBounded(t *testing.T) {
	line := `eval "eval \"eval \\\"eval \\\\\\\"eval rm\\\\\\\"\\\"\""`
	if _, err := SimpleCommands(line); err != nil {
		t.Fatal(err)
	}
}

func TestParseSyntaxError(t *testing.T) {
	tests := []struct {
		line       string
		want       SyntaxError
		incomplete bool
	}{
		{"echo 'unterminated", SyntaxError{Line: 1, Column: 6, Message: "reached EOF without closing quote '", Incomplete: true}, true},
		{"if true; then", SyntaxError{Line: 1, Column: 10, Message: "`then` must be followed by a statement list"}, true},
		{"echo )", SyntaxError{Line: 1, Column: 6, Message: "a command can only contain words and redirects; encountered )"}, false},
		{"ls\n&& rm", SyntaxError{Line: 2, Column: 1, Message: "&& can only immediately follow a statement"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			_, err := Parse(tt.line)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, want a *SyntaxError", tt.line, err)
			}
			if se.Line != tt.want.Line || se.Column != tt.want.Column || se.Message == "" || se.Incomplete != tt.incomplete {
				t.Errorf("Parse(%q) = %+v, want line %d column %d incomplete %v", tt.line, se, tt.want.Line, tt.want.Column, tt.incomplete)
			}
		})
	}
}

// FuzzSimpleCommands checks that any line either fails with a *SyntaxError
// or gives commands with at least one word, and that each command, quoted
// back into a line, parses to itself first: what the policy is shown is what
// the words are.
func FuzzSimpleCommands(f *testing.F) {
	for _, s := range []string{"git status && rm -rf x", "X=rm; $X -rf x", `eval "rm -rf x"`, "a | b", "$(a) `b` <(c)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmds, err := SimpleCommands(line)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			return
		}
		for _, c := range cmds {
			if len(c) == 0 {
				t.Fatalf("an empty command from %q", line)
			}
			again, err := SimpleCommands(Join(c))
			if err != nil {
				continue // a word syntax.Quote cannot quote (control bytes): nothing to compare
			}
			if len(again) == 0 || !cmp.Equal(again[0], c) {
				t.Fatalf("command %q from %q re-parses as %q", c, line, again)
			}
		}
	})
}

// TestUnquote pins what a word means, as bash 5.2 prints it with
// printf '%s\0' WORD: the spellings a model would use to make a command look
// like another one decode to what bash runs, and what cannot be known before
// running is refused, so the command is never read-only by its spelling.
func TestUnquote(t *testing.T) {
	tests := []struct {
		word    string
		want    string
		wantErr error
	}{
		{`rm`, "rm", nil},
		{`r\m`, "rm", nil},
		{`\r\m`, "rm", nil},
		{`'r'"m"`, "rm", nil},
		{`r''m`, "rm", nil},
		{`"r\m"`, `r\m`, nil},
		{`"a\"b\\c\$d\e"`, `a"b\c$d\e`, nil},
		{"r\\\nm", "rm", nil},
		{"\"r\\\nm\"", "rm", nil},
		{`e\ f`, "e f", nil},
		{`$'\x72\x6d'`, "rm", nil},
		{`$'\162\155'`, "rm", nil},
		{`$'\u0072\U0000006d'`, "rm", nil},
		{`$'r\0m'`, "r", nil},
		{`$'\q'`, `\q`, nil},
		{`$'\'\"\?\\'`, `'"?\`, nil},
		{`$'%s'`, "%s", nil},
		{`$'\e[0m'`, "\x1b[0m", nil},
		{`""`, "", nil},
		{`$''`, "", nil},
		{`{}`, "{}", nil},
		{`{x}`, "{x}", nil},
		{`{a\,b}`, "{a,b}", nil},
		{`{a'..'c}`, "{a..c}", nil},
		{`'{a,b}'`, "{a,b}", nil},
		{`~`, "~", nil},
		{`~/x`, "~/x", nil},
		{`~root/.ssh`, "~root/.ssh", nil},
		{`~+`, "~+", nil},
		{`'*'`, "*", nil},
		{`$'\x{72}m'`, "", ErrEscape},
		{`$'\cA'`, "", ErrEscape},
		{`$'\c\\'`, "", ErrEscape},
		{`$'\400'`, "", ErrEscape},
		{`$'\u00e9\U0001F600'`, "é😀", nil},
		{`$'\U110000'`, "", ErrEscape},
		{`$'\uD800'`, "", ErrEscape},
		{`$"rm"`, "", ErrExpansion},
		{`$HOME`, "", ErrExpansion},
		{`${X:-rm}`, "", ErrExpansion},
		{`"$X"`, "", ErrExpansion},
		{`$(echo rm)`, "", ErrExpansion},
		{"`echo rm`", "", ErrExpansion},
		{`$((1))`, "", ErrExpansion},
		{`<(ls)`, "", ErrExpansion},
		{`@(rm)`, "", ErrExpansion},
		{`r?`, "", ErrGlob},
		{`r*`, "", ErrGlob},
		{`[r]m`, "", ErrGlob},
		{`\*`, "", ErrGlob},
		{`{r,}m`, "", ErrBraces},
		{`{'-rf',x}`, "", ErrBraces},
		{`{a"b",c}`, "", ErrBraces},
		{`{1..1}`, "", ErrBraces},
		{`-{r,f}`, "", ErrBraces},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			f, err := Parse("x " + tt.word)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Unquote(f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1])
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("Unquote(%s) = %q, %v; want %q, %v", tt.word, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
