package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DefaultSecretNames are the names whose values no record ever quotes. A
// name matches any key, variable or option that contains it once both are
// reduced to lower-case letters and digits: "apikey" covers api_key,
// X-Api-Key and OPENAI_API_KEY; "token" covers GITHUB_TOKEN (and, harmlessly,
// max_tokens).
var DefaultSecretNames = []string{
	"password", "passwd", "passphrase", "secret", "token", "apikey", "authorization",
	"credential", "privatekey", "accesskey", "cookie",
}

// Redacted replaces every secret value a record would have quoted.
const Redacted = "[REDACTED]"

// The bounds on what a record quotes of a call, so that a 5 MB write_file
// content or a 10,000-word command line costs a record a few kilobytes.
const (
	MaxString = 1 << 10  // bytes of one string value, one command word or one command line
	MaxItems  = 64       // elements of one array, keys of one object
	MaxDepth  = 16       // nesting of arrays and objects
	MaxTotal  = 16 << 10 // bytes of string values and keys over a whole record's arguments
	MaxValues = 1 << 10  // values (of any type) over a whole record's arguments
	maxKey    = 128      // bytes of one object key
)

// Redactor makes what a record quotes of a call safe to keep: values of
// secret names replaced by [Redacted], long values cut with a marker that
// gives their length and SHA-256, deep or wide values cut short. It is
// safe for concurrent use.
//
// What counts as a secret:
//
//   - the value of an object key that names one (any JSON type, whole);
//   - in any string, NAME=VALUE and NAME: VALUE with a secret NAME (an
//     environment entry, a URL query, a header, a config line), VALUE being
//     a quoted string, an authentication scheme and its credentials
//     ("Bearer abc"), or a run of characters up to a space or separator;
//   - an option that names one followed by its value as the next word, in a
//     string ("--password hunter2") or an argument vector.
//
// Secrets written any other way (a bare token as a positional argument,
// -psecret) are not recognised: the audit record is not a secret store, and
// operators should keep secrets out of what models send.
type Redactor struct {
	names []string // reduced by fold
}

// NewRedactor returns a Redactor for DefaultSecretNames and extra.
func NewRedactor(extra ...string) *Redactor {
	r := &Redactor{}
	for _, n := range slices.Concat(DefaultSecretNames, extra) {
		if k := fold(n); k != "" && !slices.Contains(r.names, k) {
			r.names = append(r.names, k)
		}
	}
	return r
}

// fold reduces a name to its lower-case letters and digits.
func fold(s string) string {
	var b strings.Builder
	for _, c := range s {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			b.WriteRune(unicode.ToLower(c))
		}
	}
	return b.String()
}

// Secret reports whether name (a key, a variable, an option) names a secret.
func (r *Redactor) Secret(name string) bool {
	k := fold(name)
	for _, n := range r.names {
		if strings.Contains(k, n) {
			return true
		}
	}
	return false
}

// Arguments returns a call's JSON arguments as a record quotes them. Text
// that is not JSON (a malformed call) is quoted as one string.
func (r *Redactor) Arguments(raw []byte) json.RawMessage {
	w := &walker{r: r, budget: MaxTotal, values: MaxValues}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		v = string(raw)
		if !utf8.Valid(raw) {
			v = strings.ToValidUTF8(string(raw), "\uFFFD")
		}
	}
	out, err := json.Marshal(w.value(v, 0))
	if err != nil { // cannot happen: the walker makes only JSON values
		out, _ = json.Marshal(fmt.Sprintf("[arguments not recorded: %v]", err))
	}
	return out
}

// Argv returns a command's words as a record quotes them: each word's
// secrets redacted, the word after an option that names a secret replaced,
// each word cut at MaxString.
func (r *Redactor) Argv(argv []string) []string {
	out := make([]string, len(argv))
	for i, word := range argv {
		if i > 0 && r.secretOption(argv[i-1]) {
			out[i] = Redacted
			continue
		}
		head, marker := clip(word, MaxString)
		out[i] = r.Text(head) + marker
	}
	return out
}

// secretOption reports whether word is an option without a value of its
// own (--password, -token) that names a secret, so the next word is its
// value.
func (r *Redactor) secretOption(word string) bool {
	return strings.HasPrefix(word, "-") && !strings.Contains(word, "=") && r.Secret(word)
}

// secretValue is what follows a secret name: a quoted string, an
// authentication scheme with its credentials, or a run of characters up to
// a space, a quote or a separator.
const secretValue = `"(?:[^"\\]|\\.)*"|'[^']*'|(?i:bearer|basic|token|digest|negotiate)[ \t]+[^\s'"]+|[^\s'";&|,)}\]]+`

// assignment (NAME=value, Name: value) and optionPair (--name value) are
// compiled on first use, not when the package is initialised: every
// process that links the package would pay for them at start-up.
var (
	assignment = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([A-Za-z0-9_.\-]+)("?[ \t]*[:=][ \t]*)(` + secretValue + `)`)
	})
	optionPair = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(--?[A-Za-z0-9_.\-]+)([ \t]+)(` + secretValue + `)`)
	})
)

// Text returns s with every secret it spells out as an assignment, a header
// or an option pair replaced by Redacted.
func (r *Redactor) Text(s string) string {
	return r.replace(optionPair(), r.replace(assignment(), s))
}

// replace redacts the third group of every match of re whose first group
// names a secret. After a match whose name is not a secret the search goes
// on right after that name, so a secret inside its value is still found
// (https://host/?api_key=...: "https" is no secret, "api_key" is).
func (r *Redactor) replace(re *regexp.Regexp, s string) string {
	var b strings.Builder
	done, pos := 0, 0
	for pos < len(s) {
		m := re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		nameEnd, valStart, valEnd := pos+m[3], pos+m[6], pos+m[7]
		if !r.Secret(s[pos+m[2]:nameEnd]) || s[valStart:valEnd] == Redacted {
			pos = nameEnd
			continue
		}
		b.WriteString(s[done:valStart])
		b.WriteString(Redacted)
		done, pos = valEnd, valEnd
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// Clip cuts s to at most n bytes at a character boundary; a cut string
// ends with a marker giving the whole length and SHA-256, by which the
// value can be recognised (write_file reports the same hash) without being
// kept.
func Clip(s string, n int) string {
	head, marker := clip(s, n)
	return head + marker
}

// clip is Clip in two parts: what is kept, and the marker ("" when
// nothing was cut), so that the kept part can be redacted alone.
func clip(s string, n int) (head, marker string) {
	if len(s) <= n {
		return s, ""
	}
	sum := sha256.Sum256([]byte(s))
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], fmt.Sprintf("…[cut: %d bytes in all, sha256 %x]", len(s), sum)
}

// walker bounds and redacts one record's arguments.
type walker struct {
	r      *Redactor
	budget int // string bytes the record may still quote
	values int // values the record may still quote
}

const cutValues = "[cut: too many values]"

func (w *walker) value(v any, depth int) any {
	if w.values <= 0 {
		return cutValues
	}
	w.values--
	switch x := v.(type) {
	case map[string]any:
		if depth >= MaxDepth {
			return fmt.Sprintf("[cut: nested deeper than %d]", MaxDepth)
		}
		return w.object(x, depth)
	case []any:
		if depth >= MaxDepth {
			return fmt.Sprintf("[cut: nested deeper than %d]", MaxDepth)
		}
		return w.array(x, depth)
	case string:
		return w.text(x)
	}
	return v // numbers, booleans, null
}

func (w *walker) object(m map[string]any, depth int) map[string]any {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(map[string]any, min(len(keys), MaxItems+1))
	for i, k := range keys {
		if i == MaxItems {
			out["…"] = fmt.Sprintf("[cut: %d more keys]", len(keys)-MaxItems)
			break
		}
		if w.values <= 0 {
			out["…"] = cutValues
			break
		}
		head, marker := clip(k, min(maxKey, w.budget))
		w.budget -= len(head)
		key := head + marker
		if w.r.Secret(k) {
			out[key] = Redacted
			continue
		}
		out[key] = w.value(m[k], depth+1)
	}
	return out
}

// array bounds a list; a list of strings is read as a command's words
// (exec_command's argv), so an option naming a secret hides the next one.
func (w *walker) array(list []any, depth int) []any {
	n := min(len(list), MaxItems)
	out := make([]any, 0, n+1)
	for i, e := range list[:n] {
		if w.values <= 0 {
			out = append(out, cutValues)
			return out
		}
		if prev, ok := previousString(list, i); ok && w.r.secretOption(prev) {
			if _, ok := e.(string); ok {
				out = append(out, Redacted)
				continue
			}
		}
		out = append(out, w.value(e, depth+1))
	}
	if len(list) > n {
		out = append(out, fmt.Sprintf("[cut: %d more items]", len(list)-n))
	}
	return out
}

func previousString(list []any, i int) (string, bool) {
	if i == 0 {
		return "", false
	}
	s, ok := list[i-1].(string)
	return s, ok
}

// text clips s to what the record's budget still allows, then redacts what
// is kept (a secret cut in half is still found by its name).
func (w *walker) text(s string) string {
	head, marker := clip(s, min(MaxString, w.budget))
	w.budget -= len(head)
	return w.r.Text(head) + marker
}
