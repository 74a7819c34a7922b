package shell

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// ReadOnlyCommand reports whether a command line plainly only reads, by the
// classifier classify (nil: nothing is read-only), which judges each
// command from its words ([Classifier] makes the usual one).
//
// A line that is one simple command of literal words, with no redirection
// and no variable assignment (`make lint -j4`), is read-only when classify
// accepts its words. Any other line is read-only when it parses and: every
// simple command in it is accepted both by classify and by the built-in
// allowlist ([ReadOnlyArgv] with no extra entries), or is a builtin that
// only acts on the shell; no redirection opens a file for writing (only
// /dev/null, and duplications such as 2>&1, are allowed); every variable it
// assigns — by NAME=value, declare and its kin, read, getopts, printf -v,
// for and select, ${NAME:=value}, arithmetic, unset — is one a read-only
// line may assign (see assignable); and there is no coprocess. So an
// operator's entry ([exec] low_risk_commands) rates a command low only when
// it is the whole line: `make; rm -rf x`, `make > .git/config`, `FOO=1
// make` and `make $(curl ...)` are high whatever the entries say. Such
// lines are low risk; everything else is high.
func ReadOnlyCommand(line string, classify func(argv []string) bool) bool {
	if classify == nil {
		return false
	}
	f, err := Parse(line)
	if err != nil {
		return false
	}
	if words, ok := soleCommand(f); ok {
		return classify(words)
	}
	both := func(argv []string) bool { return ReadOnlyArgv(argv, nil) && classify(argv) }
	ok := len(f.Stmts) > 0
	syntax.Walk(f, func(n syntax.Node) bool {
		ok = ok && readOnlyNode(n, both)
		return ok
	})
	return ok
}

// Classifier returns the usual command classifier (a
// tool.CommandClassifier): [ReadOnlyArgv] with the operator's extra
// entries ([exec] low_risk_commands), naming the entry that vouched for a
// command the built-in list alone does not accept, as the audit record
// names the rule: `low_risk_commands entry "make -s test"`.
func Classifier(extraLowRisk []string) func(argv []string) (bool, string) {
	extra := slices.Clone(extraLowRisk)
	return func(argv []string) (bool, string) {
		ok, entry := readOnlyArgv(argv, extra)
		if entry == "" {
			return ok, ""
		}
		return true, "low_risk_commands entry " + strconv.Quote(entry)
	}
}

// soleCommand returns the words of a line that is one simple command and
// nothing else: every word literal, no redirection, no assignment, not in
// the background, not negated.
func soleCommand(f *syntax.File) ([]string, bool) {
	if len(f.Stmts) != 1 {
		return nil, false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 || len(st.Redirs) > 0 ||
		st.Background || st.Coprocess || st.Disown || st.Negated {
		return nil, false
	}
	return Words(call.Args)
}

// readOnlyNode judges one node of a parsed line; the walk visits its
// children afterwards.
func readOnlyNode(n syntax.Node, classify func([]string) bool) bool {
	switch n := n.(type) {
	case *syntax.Redirect:
		return safeRedirect(n)
	case *syntax.Assign:
		return n.Name == nil || assignable(n.Name.Value)
	case *syntax.DeclClause:
		return safeDecl(n)
	case *syntax.WordIter: // for NAME in, select NAME in
		return assignable(n.Name.Value)
	case *syntax.ParamExp:
		if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
			return !n.Excl && n.Param != nil && assignable(n.Param.Value)
		}
	case *syntax.BinaryArithm:
		if s := n.Op.String(); strings.HasSuffix(s, "=") && s != "==" && s != "!=" && s != "<=" && s != ">=" {
			return arithmName(n.X)
		}
	case *syntax.UnaryArithm:
		if n.Op == syntax.Inc || n.Op == syntax.Dec {
			return arithmName(n.X)
		}
	case *syntax.CoprocClause:
		return false
	case *syntax.CallExpr:
		if len(n.Args) > 0 {
			return readOnlyCall(n.Args, classify)
		}
	}
	return true
}

// arithmName reports whether an arithmetic assignment's target is a plain
// name a read-only line may assign.
func arithmName(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && assignable(w.Lit())
}

// safeDecl accepts declare, local, export, readonly and typeset with
// options that only set attributes of the names, which the walk checks as
// assignments. -n (a name reference: assigning x then assigns the name x
// refers to) and non-literal words are not accepted.
func safeDecl(d *syntax.DeclClause) bool {
	switch d.Variant.Value {
	case "declare", "local", "export", "readonly", "typeset":
	default:
		return false
	}
	for _, a := range d.Args {
		if a.Name != nil {
			continue
		}
		opt, ok := Literal(a.Value)
		if !ok || len(opt) < 2 || (opt[0] != '-' && opt[0] != '+') || strings.Trim(opt[1:], "aArxgpfFlu") != "" {
			return false
		}
	}
	return true
}

// readOnlyCall classifies one simple command. Its name must be literal; so
// must its arguments, unless no argument could make it write or run
// something (pure programs, echo, test...).
func readOnlyCall(args []*syntax.Word, classify func([]string) bool) bool {
	words, literal := Words(args)
	if _, ok := Literal(args[0]); !ok {
		return false
	}
	if !literal && !pureBuiltins[words[0]] && !programs()[words[0]].pure {
		return false
	}
	if words[0] == "printf" && len(args) > 1 {
		if _, ok := Literal(args[1]); !ok {
			return false // it could expand to -v NAME
		}
	}
	return classify(words)
}

// ReadOnlyArgv reports whether one command, as it is about to run, plainly
// only reads. The classifier is an allowlist: the command's name must be a
// bare name of a program it knows (ls, cat, grep, rg, fd, find, sort, git,
// go...) or a builtin that acts only on the shell, its subcommand (git
// status, go list...) must be a reading one, and every option must be one
// known to keep it read-only — parsed as the program parses it, so that an
// abbreviation (sort --outp) is the option it selects, an attached value
// (-Ocmd) is a value, and --no-get cancels --get. Anything unknown is not
// read-only. A path (./ls, /bin/ls) is never read-only: it may be a
// program of the workspace's.
//
// Entries of extraLowRisk are trusted as they are: argv is read-only when
// its words start with an entry's words.
func ReadOnlyArgv(argv []string, extraLowRisk []string) bool {
	ok, _ := readOnlyArgv(argv, extraLowRisk)
	return ok
}

// readOnlyArgv is ReadOnlyArgv, also returning the entry of extraLowRisk
// that vouched for argv when the built-in list alone does not.
func readOnlyArgv(argv, extraLowRisk []string) (ok bool, entry string) {
	if len(argv) == 0 || strings.ContainsAny(argv[0], "/=") {
		return false, ""
	}
	if builtinReadOnly(argv) {
		return true, ""
	}
	for _, e := range extraLowRisk {
		if prefix := strings.Fields(e); len(prefix) > 0 && hasPrefixWords(argv, prefix) {
			return true, e
		}
	}
	return false, ""
}

// builtinReadOnly is the built-in list's judgement of argv, whose name is
// a bare one.
func builtinReadOnly(argv []string) bool {
	if check, ok := readOnlyBuiltins()[argv[0]]; ok {
		return check(argv[1:])
	}
	if p, ok := programs()[argv[0]]; ok {
		return p.readOnly(argv[1:])
	}
	check, ok := specialPrograms[argv[0]]
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

// specialPrograms are the programs whose arguments are not plain options
// and operands.
var specialPrograms = map[string]func([]string) bool{
	"git":  gitReadOnly,
	"go":   goReadOnly,
	"find": findReadOnly,
	"env":  func(args []string) bool { return len(args) == 0 },
}

// pureBuiltins are the builtins no argument of which can make them write,
// run something or assign a variable.
var pureBuiltins = setOf(":", "true", "false", "echo", "test", "[", "pwd")

var anyArgs = func([]string) bool { return true }

// readOnlyBuiltins returns the shell builtins that act only on the shell's
// own state. Those that assign variables accept only names a read-only line
// may assign. Built on first use (start-up cost).
var readOnlyBuiltins = sync.OnceValue(func() map[string]func(args []string) bool {
	return map[string]func(args []string) bool{
		":": anyArgs, "true": anyArgs, "false": anyArgs, "echo": anyArgs, "test": anyArgs, "[": anyArgs,
		"pwd": anyArgs, "cd": anyArgs, "pushd": anyArgs, "popd": anyArgs, "dirs": anyArgs, "shift": anyArgs,
		"wait": anyArgs, "return": anyArgs, "exit": anyArgs, "break": anyArgs, "continue": anyArgs,
		"help": anyArgs, "set": anyArgs, "shopt": anyArgs, "type": anyArgs,
		"hash":    func(args []string) bool { return len(args) == 0 },
		"command": func(args []string) bool { return len(args) > 0 && (args[0] == "-v" || args[0] == "-V") },
		"printf": func(args []string) bool {
			return len(args) == 0 || args[0] != "-v" || (len(args) > 1 && assignable(args[1]))
		},
		"unset":   func(args []string) bool { return allAssignable(args, "-v") },
		"getopts": func(args []string) bool { return len(args) >= 2 && assignable(args[1]) },
		"read":    readReadOnly,
	}
})

// readReadOnly accepts read when every name it assigns may be assigned;
// with no name it assigns REPLY.
func readReadOnly(args []string) bool {
	p, ok := opts(exactStyle, "r s a e p= d= n= N= t= i= u=", "").stopping().parse(args)
	return ok && allAssignable(p.operands)
}

func allAssignable(names []string, skip ...string) bool {
	for _, n := range names {
		if !contains(skip, n) && !assignable(n) {
			return false
		}
	}
	return true
}

// assignable reports whether a read-only line may assign the variable
// name. An allowlist: names in lower case (or starting with a lower-case
// letter), which by convention only the shell reads, except the *_proxy
// variables programs do read; a few upper-case names that only change how
// output looks (LANG, LC_*, TZ, NO_COLOR, COLUMNS...); and the shell's own
// REPLY, OPTARG and OPTIND. Never PATH, IFS, HOME, CDPATH or any other name
// of [UnsafeEnv].
func assignable(name string) bool {
	if !validName(name) || UnsafeEnv(name) {
		return false
	}
	if contains(harmlessVars, name) || strings.HasPrefix(name, "LC_") {
		return true
	}
	if strings.ToLower(name) == name {
		return !strings.HasSuffix(name, "_proxy")
	}
	return name[0] >= 'a' && name[0] <= 'z'
}

var harmlessVars = []string{"LANG", "LANGUAGE", "TZ", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR",
	"COLUMNS", "LINES", "TERM", "COLORTERM", "GREP_COLORS", "REPLY", "OPTARG", "OPTIND"}

// findReadOnly accepts find's -H/-L/-P/-D/-O options, its starting points,
// and an expression made only of tests, options and printing actions:
// nothing that deletes (-delete), runs (-exec, -execdir, -ok, -okdir) or
// writes a file (-fprint, -fprint0, -fprintf, -fls). find spells its
// primaries in full.
func findReadOnly(args []string) bool {
	i := 0
	for ; i < len(args); i++ {
		if a := args[i]; a == "-D" {
			i++
		} else if a != "-H" && a != "-L" && a != "-P" && (!strings.HasPrefix(a, "-O") || len(a) == 2) {
			break
		}
	}
	for i < len(args) && !strings.HasPrefix(args[i], "-") && !contains([]string{"(", ")", "!", ","}, args[i]) {
		i++ // a starting point
	}
	for ; i < len(args); i++ {
		a := args[i]
		n, ok := findPrimaries()[a]
		if !ok && strings.HasPrefix(a, "-newer") && len(a) == len("-newerXY") &&
			strings.ContainsRune("aBcm", rune(a[6])) && strings.ContainsRune("aBcmt", rune(a[7])) {
			n, ok = 1, true // -newerXY REF
		}
		if !ok || i+n >= len(args) {
			return false
		}
		i += n
	}
	return true
}

// findPrimaries returns find's read-only primaries and operators, with the
// number of arguments each takes. Built on first use (start-up cost).
var findPrimaries = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	for _, p := range strings.Fields("-depth -d -follow -ignore_readdir_race -mount -noignore_readdir_race " +
		"-noleaf -xdev -daystart -warn -nowarn -help --help -version --version -empty -executable -false " +
		"-true -nogroup -nouser -readable -writable -print -print0 -ls -prune -quit -not -a -and -o -or ! ( ) ,") {
		m[p] = 0
	}
	for _, p := range strings.Fields("-maxdepth -mindepth -regextype -amin -anewer -atime -cmin -cnewer " +
		"-ctime -fstype -gid -group -ilname -iname -inum -ipath -iregex -iwholename -links -lname -mmin " +
		"-mtime -name -newer -path -perm -regex -samefile -size -type -uid -used -user -wholename -xtype " +
		"-context -printf -files0-from") {
		m[p] = 1
	}
	return m
})

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
