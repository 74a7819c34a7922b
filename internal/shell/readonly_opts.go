package shell

import "strings"

// optStyle is how a program spells its options.
type optStyle uint8

const (
	// getoptLong is GNU getopt_long: short options cluster (-rn) and take
	// their value attached (-n5) or as the next argument; a long option's
	// value is attached with "=" or, when required, the next argument; a
	// unique prefix of a long option selects it (--outp is --output).
	getoptLong optStyle = iota
	// gitStyle is git's parse-options: as getopt_long, and --no-NAME is an
	// option of its own (listed with the program's other names), and
	// --end-of-options ends options as "--" does.
	gitStyle
	// exactStyle spells long options in full only: clap (rg, fd), git's
	// revision and diff options, go's flag package. An abbreviation is an
	// unknown option.
	exactStyle
)

// optKind says whether an option takes a value.
type optKind uint8

const (
	flagOpt     optKind = iota // no value
	requiredOpt                // a value, attached or the next argument
	optionalOpt                // a value only when attached (-Ovalue, --color=always)
)

// optSpec is what the classifier knows about one program's options: those
// known to keep it read-only, with their values, and the names of all its
// other long options, so that an abbreviation resolves to the option the
// program would pick.
//
// When unsure whether a read-only option takes a value, the tables say it
// does not: the next argument is then judged as an option or operand of its
// own, which can only make the classifier stricter than the program. The
// other way round, an argument the program parses as an option would hide as
// the classifier's idea of a value.
type optSpec struct {
	style         optStyle
	safe          map[string]safeOpt // "-x" and "--name"
	names         []string           // every long option name the program knows
	stopAtOperand bool               // the first operand ends the options (git config, remote...)
}

// safeOpt is a read-only option: its canonical name, which checks of
// operands refer to, and whether it takes a value.
type safeOpt struct {
	name string
	kind optKind
}

// opts builds an optSpec. safe lists the read-only options, separated by
// spaces: each is one or more names separated by "|" (a single letter is a
// short option, "n|lines="), followed by "=" when it takes a value or "=?"
// when the value is optional; the last name is canonical. others lists the
// program's other long option names: they are not read-only, and they take
// part in resolving abbreviations.
func opts(style optStyle, safe, others string) *optSpec {
	s := &optSpec{style: style, safe: map[string]safeOpt{}}
	for _, entry := range strings.Fields(safe) {
		kind := flagOpt
		switch {
		case strings.HasSuffix(entry, "=?"):
			kind, entry = optionalOpt, strings.TrimSuffix(entry, "=?")
		case strings.HasSuffix(entry, "="):
			kind, entry = requiredOpt, strings.TrimSuffix(entry, "=")
		}
		names := strings.Split(entry, "|")
		canonical := optionName(names[len(names)-1])
		for _, n := range names {
			s.safe[optionName(n)] = safeOpt{name: canonical, kind: kind}
			if len(n) > 1 {
				s.names = append(s.names, n)
			}
		}
	}
	for _, n := range strings.Fields(others) {
		n = strings.TrimSuffix(strings.TrimPrefix(n, "--"), "=")
		s.names = append(s.names, n)
		// git accepts --NAME for an option named no-NAME (its negation).
		if positive, ok := strings.CutPrefix(n, "no-"); ok && style == gitStyle {
			s.names = append(s.names, positive)
		}
	}
	return s
}

func optionName(n string) string {
	if len(n) == 1 {
		return "-" + n
	}
	return "--" + n
}

// stopping returns a copy of s in which the first operand ends the options.
func (s *optSpec) stopping() *optSpec {
	c := *s
	c.stopAtOperand = true
	return &c
}

// parsedArgs are a command's arguments, sorted: the canonical names of the
// options used, with their values, and the operands.
type parsedArgs struct {
	opts     []usedOpt
	operands []string
	// optAfterOperand is set when an option followed an operand: under
	// POSIXLY_CORRECT the program would take it as an operand.
	optAfterOperand bool
}

type usedOpt struct{ name, value string }

// has reports whether the option named name (canonical) was used.
func (p parsedArgs) has(name string) bool {
	for _, o := range p.opts {
		if o.name == name {
			return true
		}
	}
	return false
}

// parse reads args as the program would and reports whether every option
// in them is a read-only one.
func (s *optSpec) parse(args []string) (parsedArgs, bool) {
	var p parsedArgs
	endOpts := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case endOpts || a == "-" || !strings.HasPrefix(a, "-"):
			p.operands = append(p.operands, a)
			endOpts = endOpts || s.stopAtOperand
			continue
		case a == "--" || (s.style == gitStyle && a == "--end-of-options"):
			endOpts = true
			continue
		}
		if len(p.operands) > 0 {
			p.optAfterOperand = true
		}
		var next int
		var ok bool
		if strings.HasPrefix(a, "--") {
			next, ok = s.parseLong(args, i, &p)
		} else {
			next, ok = s.parseShort(args, i, &p)
		}
		if !ok {
			return p, false
		}
		i = next
	}
	return p, true
}

// parseLong reads the long option args[i]; it returns the index of the last
// argument it used.
func (s *optSpec) parseLong(args []string, i int, p *parsedArgs) (int, bool) {
	name, value, hasValue := strings.Cut(args[i][2:], "=")
	o, ok := s.resolve(name)
	if !ok {
		return i, false
	}
	switch o.kind {
	case flagOpt:
		if hasValue {
			return i, false // the program refuses it; nothing to judge
		}
	case requiredOpt:
		if !hasValue {
			var ok bool
			if value, i, ok = nextArg(args, i); !ok {
				return i, false
			}
		}
	}
	p.opts = append(p.opts, usedOpt{o.name, value})
	return i, true
}

// nextArg takes args[i+1] as the value of the option at args[i]; there is
// none when args[i] is the last.
func nextArg(args []string, i int) (value string, next int, ok bool) {
	if i+1 >= len(args) {
		return "", i, false
	}
	return args[i+1], i + 1, true
}

// resolve finds the read-only option a long option name selects: its exact
// name, or, for programs that accept abbreviations, the one option of all
// the program's long options that name is a prefix of. An abbreviation that
// fits several options is an error to the program; to the classifier it is
// not read-only.
func (s *optSpec) resolve(name string) (safeOpt, bool) {
	if o, ok := s.safe["--"+name]; ok {
		return o, true
	}
	if s.style == exactStyle || name == "" || contains(s.names, name) {
		return safeOpt{}, false
	}
	match := ""
	for _, n := range s.names {
		if strings.HasPrefix(n, name) && n != match {
			if match != "" {
				return safeOpt{}, false
			}
			match = n
		}
	}
	o, ok := s.safe["--"+match]
	return o, ok && match != ""
}

// parseShort reads the cluster of short options args[i].
func (s *optSpec) parseShort(args []string, i int, p *parsedArgs) (int, bool) {
	a := args[i]
	for j := 1; j < len(a); j++ {
		o, ok := s.safe["-"+a[j:j+1]]
		if !ok {
			return i, false
		}
		switch o.kind {
		case flagOpt:
			p.opts = append(p.opts, usedOpt{name: o.name})
			continue
		case optionalOpt:
			p.opts = append(p.opts, usedOpt{o.name, a[j+1:]})
			return i, true
		}
		value := a[j+1:]
		if value == "" {
			var ok bool
			if value, i, ok = nextArg(args, i); !ok {
				return i, false
			}
		}
		p.opts = append(p.opts, usedOpt{o.name, value})
		return i, true
	}
	return i, true
}
