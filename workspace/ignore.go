package workspace

import (
	"bufio"
	"bytes"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
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
	kind    ruleKind
	text    string         // the literal name (kindLiteral) or suffix (kindSuffix)
	re      *regexp.Regexp // kindRegexp
	// anchored rules match the path below base; the others match the
	// basename at any depth.
	anchored bool
}

// ruleKind picks the cheapest test that decides a rule.
type ruleKind uint8

const (
	kindLiteral ruleKind = iota // basename equals text
	kindSuffix                  // basename ends with text ("*.go"; "*" has an empty suffix)
	kindRegexp                  // re matches the basename, or the path below base when anchored
)

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
		r.kind, r.text = kindLiteral, line
	case !r.anchored && strings.HasPrefix(line, "*") && !strings.ContainsAny(line[1:], `*?[\`):
		r.kind, r.text = kindSuffix, line[1:]
	default:
		re, err := regexp.Compile("^" + globToRegexp(escapeInvalid(line)) + "$")
		if err != nil {
			return ignoreRule{}, false
		}
		r.kind, r.re = kindRegexp, re
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
			end := classEnd(g, i)
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(classToRegexp(g[i+1 : end]))
			i = end
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	return b.String()
}

// classEnd returns the index of the ']' that closes the bracket expression
// opened at g[i], or -1. A ']' right after the '[' (or '[!') is a member, as
// are "[:alpha:]" classes and backslash-escaped characters.
func classEnd(g string, i int) int {
	j := i + 1
	if j < len(g) && (g[j] == '!' || g[j] == '^') {
		j++
	}
	if j < len(g) && g[j] == ']' {
		j++
	}
	for j < len(g) {
		switch {
		case g[j] == '\\' && j+1 < len(g):
			j += 2
			continue
		case strings.HasPrefix(g[j:], "[:"):
			if k := strings.Index(g[j+2:], ":]"); k >= 0 {
				j += k + 4
				continue
			}
		case g[j] == ']':
			return j
		}
		j++
	}
	return -1
}

// classToRegexp translates the body of a bracket expression. Like git's
// wildmatch, a class never matches '/', negated or not.
func classToRegexp(body string) string {
	var b strings.Builder
	b.WriteByte('[')
	if body != "" && (body[0] == '!' || body[0] == '^') {
		b.WriteString("^/")
		body = body[1:]
	}
	for k := 0; k < len(body); k++ {
		c := body[k]
		switch {
		case c == '\\' && k+1 < len(body):
			k++
			writeClassByte(&b, body[k])
		case strings.HasPrefix(body[k:], "[:") && strings.Contains(body[k+2:], ":]"):
			end := k + 2 + strings.Index(body[k+2:], ":]") + 2
			b.WriteString(body[k:end])
			k = end - 1
		case c == '-' && k > 0 && k < len(body)-1:
			b.WriteByte('-') // a range
		default:
			writeClassByte(&b, c)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// writeClassByte writes c as a literal member of a regexp class.
func writeClassByte(b *strings.Builder, c byte) {
	if isASCIIPunct(c) {
		b.WriteByte('\\')
	}
	b.WriteByte(c)
}

// escapeInvalid maps each byte of s that is not part of valid UTF-8 to a
// private-use rune of its own (U+10FF00 + the byte), so that regexps, which
// only see runes, still tell names that differ in such bytes apart. Valid
// strings are returned as they are.
func escapeInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(0x10FF00 + rune(s[i]))
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isASCIIPunct reports whether c is one of the characters regexp allows
// (and requires, inside a class, for some) to be escaped with a backslash.
func isASCIIPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
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
		case r.kind == kindLiteral:
			hit = name == r.text
		case r.kind == kindSuffix:
			hit = strings.HasSuffix(name, r.text)
		case r.anchored:
			hit = r.re.MatchString(escapeInvalid(below))
		default:
			hit = r.re.MatchString(escapeInvalid(name))
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
