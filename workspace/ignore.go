package workspace

import (
	"bufio"
	"bytes"
	"path"
	"regexp"
	"strings"
)

// IgnoreFiles are the per-directory ignore files walkers honour, in the order
// they are read (a later file's rules win over an earlier one's).
var IgnoreFiles = []string{".gitignore", ".ignore", ".quiverignore"}

// Ignore is the rules of one ignore file, in gitignore syntax, relative to
// the directory the file is in.
type Ignore struct {
	base  string // directory of the file, relative to the root ("" for the root)
	rules []ignoreRule
}

type ignoreRule struct {
	negate  bool
	dirOnly bool
	// Exactly one of the matchers is set, cheapest first.
	literal  string         // basename equals this
	suffix   string         // basename ends with this ("*.go")
	re       *regexp.Regexp // anything else, against the path below base (anchored) or the basename
	anchored bool           // re matches the path relative to base, not the basename
}

// ParseIgnore parses gitignore-syntax rules from data; base is the directory
// (relative to the workspace root, "" or "." for the root) the file sits in.
func ParseIgnore(base string, data []byte) *Ignore {
	if base == "." {
		base = ""
	}
	ig := &Ignore{base: base}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if r, ok := parseRule(sc.Text()); ok {
			ig.rules = append(ig.rules, r)
		}
	}
	return ig
}

// Len returns the number of rules.
func (ig *Ignore) Len() int { return len(ig.rules) }

func parseRule(line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	var r ignoreRule
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	} else if line[0] == '\\' && len(line) > 1 && (line[1] == '!' || line[1] == '#') {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	// A slash at the start or in the middle anchors the pattern to base.
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	switch {
	case !r.anchored && !strings.ContainsAny(line, `*?[\`):
		r.literal = line
	case !r.anchored && strings.HasPrefix(line, "*") && !strings.ContainsAny(line[1:], `*?[\`):
		r.suffix = line[1:]
	default:
		re, err := regexp.Compile("^" + globToRegexp(line) + "$")
		if err != nil {
			return ignoreRule{}, false
		}
		r.re = re
	}
	return r, true
}

// trimTrailingSpaces removes trailing spaces unless escaped with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// globToRegexp translates a gitignore glob: "*" and "?" do not cross "/",
// "**/" matches any number of leading directories, "/**" everything below.
func globToRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case c == '*' && g[i:] == "**":
			b.WriteString(".*")
			i++
		case c == '*' && strings.HasPrefix(g[i:], "**"):
			b.WriteString("[^/]*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(g[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(string(g[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// Match reports whether rel (relative to the workspace root) is matched by a
// rule of ig, and if so whether the last matching rule negates (re-includes).
func (ig *Ignore) Match(rel string, isDir bool) (matched, negated bool) {
	below := rel
	if ig.base != "" {
		var ok bool
		below, ok = strings.CutPrefix(rel, ig.base+"/")
		if !ok {
			return false, false
		}
	}
	name := path.Base(below)
	for i := len(ig.rules) - 1; i >= 0; i-- {
		r := &ig.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		var hit bool
		switch {
		case r.literal != "":
			hit = name == r.literal
		case r.suffix != "":
			hit = strings.HasSuffix(name, r.suffix)
		case r.anchored:
			hit = r.re.MatchString(below)
		default:
			hit = r.re.MatchString(name)
		}
		if hit {
			return true, r.negate
		}
	}
	return false, false
}

// IgnoreStack is the ignore files in force for one directory, outermost first.
type IgnoreStack []*Ignore

// Ignored reports whether rel is ignored: the deepest file with a matching rule
// decides, and within a file the last matching rule.
func (s IgnoreStack) Ignored(rel string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if m, neg := s[i].Match(rel, isDir); m {
			return !neg
		}
	}
	return false
}
