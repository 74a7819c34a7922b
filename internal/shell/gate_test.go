package shell

import (
	"context"
	"strings"
	"sync"

	"github.com/quiverkit/quiver/tool"
)

// prefixGate allows the commands whose words start with one of its
// prefixes, and writes under its write prefixes; it records what it was
// asked.
type prefixGate struct {
	allow  [][]string
	writes []string

	mu      sync.Mutex
	asked   [][]string
	writes_ []string
}

func newGate(allow ...string) *prefixGate {
	g := &prefixGate{}
	for _, a := range allow {
		g.allow = append(g.allow, strings.Fields(a))
	}
	return g
}

func (g *prefixGate) allowWrites(prefixes ...string) *prefixGate {
	g.writes = append(g.writes, prefixes...)
	return g
}

func (g *prefixGate) CheckCommand(_ context.Context, argv []string) error {
	g.mu.Lock()
	g.asked = append(g.asked, argv)
	g.mu.Unlock()
	for _, p := range g.allow {
		if hasPrefixWords(argv, p) {
			return nil
		}
	}
	return tool.Errorf(tool.CodeToolNotAllowed, "command %q refused by policy: no allow rule names it", strings.Join(argv, " ")).WithDetail("rule", "test gate")
}

func (g *prefixGate) CheckWrite(_ context.Context, path string) error {
	g.mu.Lock()
	g.writes_ = append(g.writes_, path)
	g.mu.Unlock()
	for _, p := range g.writes {
		if strings.HasPrefix(path, p) {
			return nil
		}
	}
	return tool.Errorf(tool.CodeToolNotAllowed, "writing %s refused by policy: test gate", path)
}
