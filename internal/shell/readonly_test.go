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
		{"git -C sub diff --stat", true},
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
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			if got := ReadOnlyCommand(tt.line, nil); got != tt.want {
				t.Errorf("ReadOnlyCommand(%q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}

func TestReadOnlyExtraEntries(t *testing.T) {
	extra := []string{"jq", "npm ls", "cargo tree"}
	tests := []struct {
		line string
		want bool
	}{
		{"jq .name package.json", true},
		{"npm ls --depth 0", true},
		{"npm install", false},
		{"cargo tree | head", true},
		{"cargo build", false},
		{"npm ls > deps.txt", false},
	}
	for _, tt := range tests {
		if got := ReadOnlyCommand(tt.line, extra); got != tt.want {
			t.Errorf("ReadOnlyCommand(%q, %q) = %v, want %v", tt.line, extra, got, tt.want)
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
		{nil, false},
	}
	for _, tt := range tests {
		if got := ReadOnlyArgv(tt.argv, nil); got != tt.want {
			t.Errorf("ReadOnlyArgv(%q) = %v, want %v", tt.argv, got, tt.want)
		}
	}
}
