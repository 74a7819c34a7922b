package shell

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/quiverkit/quiver/sandbox"
)

// A wrapper is a program that runs the command given in its arguments (env
// rm -rf x). The policy must see the command it runs as well as the wrapper,
// so both static checks (SimpleCommands) and exec-time checks look inside.
type wrapper struct {
	valueOpts   []string // options whose value is the next argument
	positional  int      // operands before the command (timeout's duration, flock's file)
	assignments bool     // NAME=VALUE words may precede the command (env)
	noRunOpts   []string // options that make it look a command up instead of running it (command -v)
	splitOpts   []string // options whose value is itself a command line (env -S)
}

// wrappers returns the wrappers by name. Built on first use (start-up
// cost).
var wrappers = sync.OnceValue(func() map[string]wrapper {
	return map[string]wrapper{
		"env":     {valueOpts: []string{"-u", "--unset", "-C", "--chdir"}, assignments: true, splitOpts: []string{"-S", "--split-string"}},
		"nice":    {valueOpts: []string{"-n", "--adjustment"}},
		"nohup":   {},
		"setsid":  {},
		"stdbuf":  {valueOpts: []string{"-i", "-o", "-e", "--input", "--output", "--error"}},
		"timeout": {valueOpts: []string{"-k", "--kill-after", "-s", "--signal"}, positional: 1},
		"time":    {valueOpts: []string{"-f", "--format", "-o", "--output"}},
		"xargs": {valueOpts: []string{"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines",
			"-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"}},
		"sudo": {valueOpts: []string{"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir",
			"-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user"}},
		"doas":    {valueOpts: []string{"-u", "-C"}},
		"flock":   {valueOpts: []string{"-w", "--wait", "--timeout", "-E", "--conflict-exit-code"}, positional: 1, splitOpts: []string{"-c", "--command"}},
		"watch":   {valueOpts: []string{"-n", "--interval", "-q", "--equexit"}},
		"command": {noRunOpts: []string{"-v", "-V"}},
		"exec":    {valueOpts: []string{"-a"}},
		"builtin": {},
		"busybox": {},
	}
})

// shells run a script given with -c.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true}

// innerCommands returns the commands argv would run besides itself, as far
// as its literal words tell: eval's string, a shell's -c script, a wrapper's
// command, find's -exec commands. Nested wrappers are looked into up to
// maxNesting levels.
func innerCommands(argv []string, depth int) [][]string {
	if depth >= maxNesting || len(argv) == 0 {
		return nil
	}
	name := argv[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	var direct [][]string
	switch {
	case name == "eval":
		return parsed(strings.Join(argv[1:], " "), depth)
	case shells[name]:
		if script, ok := shellScript(argv[1:]); ok {
			return parsed(script, depth)
		}
		if readsProgramFromStdin("sh", argv[1:]) {
			return [][]string{{argv[0], StdinProgram}}
		}
		return nil
	case interpreterOf(name) != "":
		if readsProgramFromStdin(interpreterOf(name), argv[1:]) {
			return [][]string{{argv[0], StdinProgram}}
		}
		return nil
	case name == "find":
		direct = findExecs(argv[1:])
	default:
		w, ok := wrappers()[name]
		if !ok {
			return nil
		}
		cmd, line, isLine := wrapped(w, argv[1:])
		if name == "watch" && len(cmd) > 0 {
			// watch runs its arguments joined, through sh -c.
			line, isLine = strings.Join(cmd, " "), true
		}
		if isLine {
			return parsed(line, depth)
		}
		if len(cmd) > 0 {
			direct = [][]string{cmd}
		}
	}
	var out [][]string
	for _, c := range direct {
		out = append(out, c)
		out = append(out, innerCommands(c, depth+1)...)
	}
	return out
}

// parsed returns the simple commands of a command line found inside another
// command's arguments; a line that does not parse gives none (the outer
// command is still checked).
func parsed(line string, depth int) [][]string {
	f, err := Parse(line)
	if err != nil {
		return nil
	}
	return simpleCommands(f, depth+1)
}

// wrapped returns the command a wrapper runs (what follows its options, its
// operands and, for env, its assignments), or the command line given to one
// of its options (env -S 'cmd args', flock FILE -c 'cmd').
func wrapped(w wrapper, args []string) (cmd []string, line string, isLine bool) {
	positional := w.positional
	endOpts := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" && !endOpts:
			endOpts = true
		case !endOpts && strings.HasPrefix(a, "-") && a != "-":
			if contains(w.noRunOpts, a) {
				return nil, "", false
			}
			if line, ok := optionValue(w.splitOpts, args, i); ok {
				return nil, line, true
			}
			if contains(w.valueOpts, a) {
				i++
			}
		case w.assignments && positional == 0 && isAssignment(a):
		case positional > 0:
			positional--
		default:
			return args[i:], "", false
		}
	}
	return nil, "", false
}

// optionValue returns the value of args[i] if it is one of opts, given as
// the next argument, after "=" (long options) or attached (short options).
func optionValue(opts []string, args []string, i int) (string, bool) {
	a := args[i]
	for _, opt := range opts {
		switch {
		case a == opt:
			if i+1 < len(args) {
				return args[i+1], true
			}
		case strings.HasPrefix(opt, "--") && strings.HasPrefix(a, opt+"="):
			return a[len(opt)+1:], true
		case !strings.HasPrefix(opt, "--") && strings.HasPrefix(a, opt) && len(a) > len(opt):
			return a[len(opt):], true
		}
	}
	return "", false
}

// shellScript returns the script of `sh [options] -c SCRIPT [name args...]`.
func shellScript(args []string) (string, bool) {
	inline := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if inline && i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			i++
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			if strings.HasPrefix(a, "-") && strings.ContainsRune(a[1:], 'c') {
				inline = true
			}
		default:
			return a, inline
		}
	}
	return "", false
}

// StdinProgram stands, in the commands [SimpleCommands] lists and the gate
// is asked about, for the program an interpreter reads from its standard
// input, a here-document or a pipe (sh <<< 'rm x', printf 'rm x' | sh,
// bash -s, python3 <<EOF, awk -f -): [interpreter, StdinProgram]. That code
// cannot be known before it runs, so it is handled as sh -c with a word that
// is not literal: no allow rule's specifier covers it, every deny or ask
// rule with a command specifier matches it, and it is never read-only.
const StdinProgram = "<program read from standard input>"

// interpreters read a program: inline options give it in the arguments,
// the first operand names a file holding it, and without either they read
// it from standard input. valueOpts take the next argument as a value.
// Built on first use (start-up cost).
var interpreters = sync.OnceValue(func() map[string]struct{ inline, valueOpts []string } {
	return map[string]struct{ inline, valueOpts []string }{
		"sh":     {inline: []string{"-c"}, valueOpts: []string{"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}},
		"python": {inline: []string{"-c", "-m"}, valueOpts: []string{"-W", "-X", "-Q"}},
		"perl":   {inline: []string{"-e", "-E"}, valueOpts: []string{"-I", "-M", "-m"}},
		"ruby":   {inline: []string{"-e"}, valueOpts: []string{"-I", "-r", "-C", "-E"}},
		"node": {inline: []string{"-e", "--eval", "-p", "--print"}, valueOpts: []string{"-r", "--require",
			"--import", "--loader", "--experimental-loader", "--input-type", "--env-file", "-C", "--conditions"}},
		"php":    {inline: []string{"-r", "-R", "-B", "-E"}, valueOpts: []string{"-c", "-d", "-z"}},
		"lua":    {inline: []string{"-e"}, valueOpts: []string{"-l"}},
		"tclsh":  {},
		"dc":     {inline: []string{"-e", "--expression"}},
		"awk":    {},
		"sed":    {},
		"make":   {},
		"expect": {inline: []string{"-c"}},
	}
})

// interpreterOf returns the interpreters key of a program name (python3.12
// is python), or "".
func interpreterOf(name string) string {
	base := strings.TrimRight(name, "0123456789.")
	switch {
	case shells[name]:
		return "sh"
	case base == "nodejs":
		return "node"
	case base == "gawk" || base == "mawk" || base == "nawk":
		return "awk"
	case base == "gsed":
		return "sed"
	case base == "gmake":
		return "make"
	case base == "wish":
		return "tclsh"
	}
	if _, ok := interpreters()[base]; ok {
		return base
	}
	return ""
}

// readsProgramFromStdin reports whether interpreter kind (a key of
// interpreters) run with args reads the program it runs from standard
// input or a descriptor path (/dev/stdin, /dev/fd/N).
func readsProgramFromStdin(kind string, args []string) bool {
	file, stdin := programSource(kind, args)
	return stdin || (file != "" && stdinPath(file))
}

// programSource returns the file an interpreter reads its program from,
// or stdin when it reads standard input. awk, sed and make read a program
// file given with -f; the others, their first operand, or standard input
// when there is none or when -s (shells) asks for it. An inline program
// (sh -c, python -c, perl -e...) gives neither.
func programSource(kind string, args []string) (file string, stdin bool) {
	switch kind {
	case "awk", "sed", "make":
		for i, a := range args {
			if a == "--" {
				break
			}
			if v, ok := fileOptionValue(kind, args, i); ok {
				return v, false
			}
		}
		return "", false
	}
	in := interpreters()[kind]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1], false
			}
			return "", true
		case a == "-":
			return "", true
		case !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+"):
			return a, false
		case contains(in.valueOpts, a):
			i++
		case contains(in.inline, a) || (!strings.HasPrefix(a, "--") && inlineCluster(in.inline, a)):
			return "", kind == "sh" // sh -c with no script: it comes from elsewhere (xargs sh -c)
		case kind == "sh" && !strings.HasPrefix(a, "--") && strings.ContainsRune(a[1:], 's'):
			return "", true
		}
	}
	return "", true
}

// interpreterProgramFile returns the program file argv's interpreter
// reads, if it is one that reads a file.
func interpreterProgramFile(argv []string) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	name := argv[0][strings.LastIndexByte(argv[0], '/')+1:]
	kind := interpreterOf(name)
	if kind == "" {
		return "", false
	}
	file, _ := programSource(kind, argv[1:])
	return file, file != ""
}

// regularFile reports whether name, relative to dir, is a regular file
// (following symbolic links).
func regularFile(dir, name string) bool {
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// inlineCluster reports whether a short-option cluster (-ne) holds one of
// the inline-program options.
func inlineCluster(inline []string, a string) bool {
	for _, o := range inline {
		if len(o) == 2 && o[0] == '-' && strings.ContainsRune(a[1:], rune(o[1])) {
			return true
		}
	}
	return false
}

// fileOptionValue returns the value of a program-file option of awk
// (-f, --file), sed (-f, --file) or make (-f, --file, --makefile) at
// args[i].
func fileOptionValue(kind string, args []string, i int) (string, bool) {
	opts := []string{"-f", "--file"}
	if kind == "make" {
		opts = append(opts, "--makefile")
	}
	return optionValue(opts, args, i)
}

// stdinPath reports whether a program file names standard input or another
// descriptor: -, /dev/stdin, /dev/fd/N, /proc/.../fd/N.
func stdinPath(p string) bool {
	return p == "-" || p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") ||
		(strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/"))
}

// findExecs returns the commands of find's -exec, -execdir, -ok and -okdir
// actions, each up to its ";" or "+".
func findExecs(args []string) [][]string {
	var out [][]string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			if j > i+1 {
				out = append(out, args[i+1:j])
			}
			i = j
		}
	}
	return out
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && validName(name)
}

// validName reports whether s is a valid environment variable name.
var validName = sandbox.ValidEnvName

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
