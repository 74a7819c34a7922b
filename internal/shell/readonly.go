package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ReadOnlyCommand reports whether a command line plainly only reads: it
// parses, every simple command in it (see [SimpleCommands]) is read-only by
// [ReadOnlyArgv], no redirection opens a file for writing (only /dev/null,
// and duplications such as 2>&1, are allowed), no assignment changes a
// variable that changes what programs do (PATH, GIT_*, LD_PRELOAD...), and
// there is no coprocess. Such lines are low risk; everything else is high.
//
// extraLowRisk adds entries to the built-in list (from configuration): each
// is a command and optionally its first arguments ("jq", "npm ls", "cargo
// tree"); a command whose words start with an entry's words is read-only.
func ReadOnlyCommand(line string, extraLowRisk []string) bool {
	f, err := Parse(line)
	if err != nil {
		return false
	}
	ok := len(f.Stmts) > 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *syntax.Redirect:
			ok = safeRedirect(n)
		case *syntax.Assign:
			ok = n.Name == nil || safeAssign(n.Name.Value)
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				ok = n.Param != nil && safeAssign(n.Param.Value)
			}
		case *syntax.CoprocClause:
			ok = false
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				ok = readOnlyCall(n.Args, extraLowRisk)
			}
		}
		return ok
	})
	return ok
}

// readOnlyCall classifies one simple command. Its name must be literal; so
// must its arguments, unless the command reads whatever it is given.
func readOnlyCall(args []*syntax.Word, extra []string) bool {
	words, literal := Words(args)
	if _, ok := Literal(args[0]); !ok {
		return false
	}
	if !literal && !anyArgs[words[0]] {
		return false
	}
	return ReadOnlyArgv(words, extra)
}

// ReadOnlyArgv reports whether one command, as it is about to run, plainly
// only reads: its name is a bare name in the built-in read-only list (ls,
// cat, head, tail, wc, grep, rg, find, git status/log/diff/show/branch
// --list, go version/env/list, and more) and none of its arguments is one
// that makes it write or run something else (find -delete/-exec, rg --pre,
// sort -o, git -c, go env -w...), or its words start with an entry of
// extraLowRisk. A path (./ls, /bin/ls) is never read-only: it may be a
// program of the workspace's.
func ReadOnlyArgv(argv []string, extraLowRisk []string) bool {
	if len(argv) == 0 || strings.ContainsAny(argv[0], "/=") {
		return false
	}
	for _, e := range extraLowRisk {
		if prefix := strings.Fields(e); len(prefix) > 0 && hasPrefixWords(argv, prefix) {
			return true
		}
	}
	if anyArgs[argv[0]] {
		return true
	}
	check, ok := readOnlyChecks[argv[0]]
	return ok && check(argv[1:])
}

func hasPrefixWords(argv, prefix []string) bool {
	if len(argv) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		if argv[i] != p {
			return false
		}
	}
	return true
}

// anyArgs are read-only whatever their arguments.
var anyArgs = setOf(
	// shell builtins that only touch the shell's own state
	":", "true", "false", "echo", "printf", "pwd", "cd", "pushd", "popd", "dirs", "test", "[",
	"type", "hash", "shift", "unset", "getopts", "read", "wait", "return", "exit", "break", "continue", "help", "set", "shopt",
	// programs that read and print
	"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "basename", "dirname", "realpath", "readlink",
	"stat", "du", "df", "diff", "cmp", "comm", "cut", "tr", "nl", "tac", "rev", "od", "hexdump", "strings",
	"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum",
	"jq", "column", "fold", "fmt", "paste", "expand", "unexpand", "join", "seq",
	"whoami", "id", "groups", "uname", "arch", "printenv", "which", "sleep", "nproc", "locale", "uptime", "free", "ps", "tty",
)

// readOnlyChecks are read-only unless an argument makes them write or run
// something.
var readOnlyChecks = map[string]func(args []string) bool{
	"find":     without("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"),
	"fd":       withoutFlags("xX", "--exec", "--exec-batch"),
	"fdfind":   withoutFlags("xX", "--exec", "--exec-batch"),
	"rg":       without("--pre", "--hostname-bin"),
	"sort":     withoutFlags("o", "--output", "--compress-program"),
	"tree":     withoutFlags("oR"),
	"file":     withoutFlags("C", "--compile"),
	"uniq":     maxOperands(1, "-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"),
	"hostname": func(args []string) bool { return maxOperands(0)(args) && without("-F", "--file")(args) },
	"date":     dateReadOnly,
	"env":      func(args []string) bool { return len(args) == 0 },
	"command":  func(args []string) bool { return len(args) > 0 && (args[0] == "-v" || args[0] == "-V") },
	"git":      gitReadOnly,
	"go":       goReadOnly,
}

// without refuses the given options, alone or with "=value".
func without(opts ...string) func([]string) bool {
	return func(args []string) bool {
		for _, a := range args {
			name, _, _ := strings.Cut(a, "=")
			if contains(opts, name) {
				return false
			}
		}
		return true
	}
}

// withoutFlags refuses the long options given, and any short-option cluster
// (-xyz) containing one of the letters in short.
func withoutFlags(short string, long ...string) func([]string) bool {
	return func(args []string) bool {
		for _, a := range args {
			if strings.HasPrefix(a, "--") {
				name, _, _ := strings.Cut(a, "=")
				if contains(long, name) {
					return false
				}
				continue
			}
			if strings.HasPrefix(a, "-") && strings.ContainsAny(a[1:], short) {
				return false
			}
		}
		return true
	}
}

// maxOperands refuses more than n operands (non-option arguments); the
// options in valueOpts take the next argument as their value.
func maxOperands(n int, valueOpts ...string) func([]string) bool {
	return func(args []string) bool {
		operands := 0
		for i := 0; i < len(args); i++ {
			switch a := args[i]; {
			case contains(valueOpts, a):
				i++
			case !strings.HasPrefix(a, "-") || a == "-":
				operands++
			}
		}
		return operands <= n
	}
}

// dateReadOnly refuses date -s and a MMDDhhmm operand (both set the clock).
func dateReadOnly(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			return false
		}
	}
	return withoutFlags("s", "--set")(args)
}

// gitReadOnly accepts the git subcommands that only read, with no global
// option that could make git run something (-c, --exec-path, --git-dir...).
func gitReadOnly(args []string) bool {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C":
			i++
		case contains(gitSafeGlobals, a):
		case strings.HasPrefix(a, "-"):
			return false
		default:
			check, ok := gitSubcommands[a]
			return ok && check(args[i+1:])
		}
	}
	return false
}

var gitSafeGlobals = []string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"}

var (
	anything     = func([]string) bool { return true }
	noDiffOutput = without("--output", "--ext-diff")
)

var gitSubcommands = map[string]func([]string) bool{
	"status": anything, "log": noDiffOutput, "show": noDiffOutput, "diff": noDiffOutput,
	"shortlog": noDiffOutput, "whatchanged": noDiffOutput, "blame": anything, "annotate": anything,
	"rev-parse": anything, "ls-files": anything, "ls-tree": anything, "cat-file": anything,
	"show-ref": anything, "describe": anything, "rev-list": anything, "merge-base": anything,
	"name-rev": anything, "for-each-ref": anything, "count-objects": anything, "version": anything,
	"check-ignore": anything, "check-attr": anything,
	"grep":     without("-O", "--open-files-in-pager"),
	"branch":   gitBranchReadOnly,
	"tag":      gitTagReadOnly,
	"remote":   func(a []string) bool { return len(a) == 0 || a[0] == "-v" || a[0] == "--verbose" || a[0] == "get-url" },
	"stash":    func(a []string) bool { return len(a) > 0 && (a[0] == "list" || a[0] == "show") },
	"reflog":   func(a []string) bool { return len(a) == 0 || a[0] == "show" || strings.HasPrefix(a[0], "-") },
	"worktree": func(a []string) bool { return len(a) > 0 && a[0] == "list" },
	"config":   gitConfigReadOnly,
}

// gitBranchReadOnly accepts listing: no operands unless --list is given, and
// no option that creates, deletes, moves, copies or sets anything.
func gitBranchReadOnly(args []string) bool {
	list := false
	for _, a := range args {
		switch {
		case a == "--list" || a == "-l":
			list = true
		case a == "-a" || a == "--all" || a == "-r" || a == "--remotes" || a == "-v" || a == "-vv" ||
			a == "--verbose" || a == "--show-current" || a == "--color" || a == "--no-color" ||
			a == "--column" || a == "--no-column" || a == "-i" || a == "--ignore-case" ||
			strings.HasPrefix(a, "--sort=") || strings.HasPrefix(a, "--format=") ||
			strings.HasPrefix(a, "--contains") || strings.HasPrefix(a, "--no-contains") ||
			strings.HasPrefix(a, "--merged") || strings.HasPrefix(a, "--no-merged") ||
			strings.HasPrefix(a, "--points-at") || strings.HasPrefix(a, "--abbrev"):
		case strings.HasPrefix(a, "-"):
			return false
		default:
			if !list {
				return false
			}
		}
	}
	return true
}

// gitTagReadOnly accepts `git tag` alone and `git tag -l/--list [pattern]`.
func gitTagReadOnly(args []string) bool {
	if len(args) == 0 {
		return true
	}
	list := false
	for _, a := range args {
		switch {
		case a == "-l" || a == "--list":
			list = true
		case a == "-d" || a == "--delete" || a == "-a" || a == "--annotate" || a == "-s" || a == "--sign" ||
			a == "-u" || a == "--local-user" || a == "-m" || a == "--message" || a == "-F" || a == "--file" ||
			a == "-f" || a == "--force" || a == "-e" || a == "--edit" || a == "-v" || a == "--verify":
			return false
		}
	}
	return list
}

// gitConfigReadOnly accepts the reading forms of git config.
func gitConfigReadOnly(args []string) bool {
	if len(args) > 0 && (args[0] == "get" || args[0] == "list") {
		return true
	}
	read := false
	for _, a := range args {
		switch a {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l":
			read = true
		case "--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit":
			return false
		}
	}
	return read
}

// goReadOnly accepts go version, go env (not -w/-u), go list (not
// -toolexec, -mod=mod), go doc and go help.
func goReadOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	rest := args[1:]
	switch args[0] {
	case "version", "doc", "help":
		return true
	case "env":
		return without("-w", "-u")(rest)
	case "list":
		for _, a := range rest {
			if strings.HasPrefix(a, "-toolexec") || strings.HasPrefix(a, "--toolexec") || a == "-mod=mod" || a == "-modfile" || strings.HasPrefix(a, "-modfile=") || strings.HasPrefix(a, "-exec") {
				return false
			}
		}
		return true
	}
	return false
}

// safeRedirect reports whether a redirection only reads, duplicates a
// descriptor, or writes to /dev/null.
func safeRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn:
		return true
	case syntax.DplOut:
		target, ok := Literal(r.Word)
		return ok && (target == "-" || isDigits(target))
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		target, ok := Literal(r.Word)
		return ok && target == "/dev/null"
	}
	return false
}

// safeAssign reports whether assigning name keeps a line read-only: names
// that change what programs do are refused, and of the upper-case names
// (which programs read from the environment) only a few plainly harmless
// ones are allowed.
func safeAssign(name string) bool {
	if name == "PATH" || UnsafeEnv(name) {
		return false
	}
	if strings.ToUpper(name) != name {
		return true // shell-local style; no program reads it
	}
	return strings.HasPrefix(name, "LC_") || contains(harmlessEnv, name)
}

var harmlessEnv = []string{"LANG", "LANGUAGE", "TZ", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR",
	"COLUMNS", "LINES", "TERM", "COLORTERM", "GREP_COLORS"}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
