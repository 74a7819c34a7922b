package script

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/quiverkit/quiver/tool"
)

// Header is what a script says about itself.
type Header struct {
	Description string
	Params      []Param
	// Risk is the risk the script declares ("" when it declares none). It
	// can raise a script's risk, never lower it: see [Options].LowRisk.
	Risk    tool.Risk
	Timeout time.Duration // 0: the provider's default
}

// Param is one "# quiver: param" line.
type Param struct {
	Name        string
	Type        string
	Required    bool
	Description string
}

// ErrNoHeader is returned by ParseHeader for a file without "# quiver:" lines.
var ErrNoHeader = fmt.Errorf("no \"# quiver:\" header")

// maxHeader is how much of a file is read for its header.
const maxHeader = 16 << 10

// validParamName reports whether name is a parameter name: 1 to 64
// letters, digits, '_' and '-', starting with a letter or '_' (the regular
// expression ^[A-Za-z_][A-Za-z0-9_-]{0,63}$). It is plain code because that
// expression, compiled at start-up, cost every process 60 KB: its bounded
// repetition compiles to 63 copies.
func validParamName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case i > 0 && (c == '-' || '0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return true
}

// ParseHeader reads the header from the leading comment block of r.
func ParseHeader(r io.Reader) (Header, error) {
	var h Header
	found := false
	var desc []string
	sc := bufio.NewScanner(io.LimitReader(r, maxHeader))
	sc.Buffer(make([]byte, 0, 4096), maxHeader)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if !strings.HasPrefix(text, "#") {
			break
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(text, "#")), "quiver:")
		if !ok {
			continue
		}
		found = true
		directive, arg, _ := strings.Cut(strings.TrimSpace(rest), " ")
		arg = strings.TrimSpace(arg)
		if err := h.apply(directive, arg, &desc); err != nil {
			return Header{}, fmt.Errorf("line %d: %w", line, err)
		}
	}
	if !found {
		return Header{}, ErrNoHeader
	}
	if len(desc) == 0 {
		return Header{}, fmt.Errorf("no \"# quiver: description\" line")
	}
	h.Description = strings.Join(desc, "\n")
	return h, nil
}

func (h *Header) apply(directive, arg string, desc *[]string) error {
	switch directive {
	case "description":
		*desc = append(*desc, arg)
	case "param":
		p, err := parseParam(arg)
		if err != nil {
			return err
		}
		for _, q := range h.Params {
			if q.Name == p.Name {
				return fmt.Errorf("param %q declared twice", p.Name)
			}
		}
		h.Params = append(h.Params, p)
	case "risk":
		if arg != "low" && arg != "high" {
			return fmt.Errorf("risk must be low or high, not %q", arg)
		}
		h.Risk = tool.Risk(arg)
	case "timeout":
		n, err := strconv.Atoi(arg)
		if err != nil || n <= 0 {
			return fmt.Errorf("timeout must be a positive number of seconds, not %q", arg)
		}
		h.Timeout = time.Duration(n) * time.Second
	default:
		return fmt.Errorf("unknown directive %q (want description, param, risk or timeout)", directive)
	}
	return nil
}

// parseParam parses "NAME TYPE [required] DESCRIPTION...".
func parseParam(arg string) (Param, error) {
	f := strings.Fields(arg)
	if len(f) < 2 {
		return Param{}, fmt.Errorf("param: want NAME TYPE [required] DESCRIPTION, got %q", arg)
	}
	p := Param{Name: f[0], Type: f[1]}
	if !validParamName(p.Name) {
		return Param{}, fmt.Errorf("param name %q: use letters, digits, '_' and '-'", p.Name)
	}
	switch p.Type {
	case "string", "integer", "number", "boolean":
	default:
		return Param{}, fmt.Errorf("param %q: type must be string, integer, number or boolean, not %q", p.Name, p.Type)
	}
	rest := f[2:]
	if len(rest) > 0 && rest[0] == "required" {
		p.Required, rest = true, rest[1:]
	}
	p.Description = strings.Join(rest, " ")
	return p, nil
}
