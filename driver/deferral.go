package driver

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"path"
	"slices"
	"sort"
	"strings"
)

// ToolSearchName is the name of Quiver's own tool search: the tool a model
// is offered in place of the tools a [Deferral] holds back, on APIs without
// a native one (Chat Completions, Gemini, Ollama), and the name under which
// an OpenAI Responses client-executed tool_search call reaches the loop.
const ToolSearchName = "tool_search"

// MetaToolSearch marks a call that is a provider's tool search rather than
// a function call (an OpenAI Responses tool_search_call): its result goes
// back as the provider's tool-search output, carrying the tools found.
const MetaToolSearch = "tool_search"

// Deferral decides which tools a model is shown up front and which wait
// behind tool search. A deferred tool is still callable — the toolkit runs
// any call by name — only the model is not shown its definition until a
// search finds it. A nil *Deferral defers nothing.
type Deferral struct {
	// Core are the tools always loaded unless Defer names them.
	Core []string
	// Defer and AlwaysLoad are names or path.Match patterns
	// ("github__*"). AlwaysLoad wins over Defer; a tool neither names is
	// deferred unless it is in Core.
	Defer, AlwaysLoad []string
}

// Deferred reports whether the tool called name waits behind tool search.
func (d *Deferral) Deferred(name string) bool {
	if d == nil || name == ToolSearchName {
		return false
	}
	if matchAny(d.AlwaysLoad, name) {
		return false
	}
	if matchAny(d.Defer, name) {
		return true
	}
	return !slices.Contains(d.Core, name)
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// Mark sets Deferred on the definitions d holds back, leaving those in
// loaded (found by an earlier search) shown.
func (d *Deferral) Mark(defs []ToolDefinition, loaded map[string]bool) []ToolDefinition {
	out := slices.Clone(defs)
	for i := range out {
		out[i].Deferred = d.Deferred(out[i].Name) && !loaded[out[i].Name]
	}
	return out
}

// UpFront is what a model without native deferral is offered: the tools not
// deferred, then, when some are, Quiver's tool_search naming them.
func UpFront(defs []ToolDefinition) []ToolDefinition {
	var out []ToolDefinition
	var deferred []string
	for _, d := range defs {
		if d.Deferred {
			deferred = append(deferred, d.Name)
			continue
		}
		out = append(out, d)
	}
	if len(deferred) == 0 {
		return out
	}
	return append(out, ToolSearchDefinition(deferred))
}

// HasDeferred reports whether any definition is deferred.
func HasDeferred(defs []ToolDefinition) bool {
	return slices.ContainsFunc(defs, func(d ToolDefinition) bool { return d.Deferred })
}

// ToolSearchDefinition is Quiver's tool_search, naming the tools it can
// load: a model cannot search for what it does not know exists.
func ToolSearchDefinition(deferred []string) ToolDefinition {
	return ToolDefinition{
		Name: ToolSearchName,
		Description: "Load tools that are not loaded yet: give keywords or tool names, get the matching tools' definitions, callable from then on. Not loaded: " +
			strings.Join(deferred, ", ") + ".",
		Parameters: toolSearchSchema,
	}
}

var toolSearchSchema = &jsonschema.Schema{
	Type: "object",
	Properties: map[string]*jsonschema.Schema{
		"query": {Type: "string", Description: "keywords or tool names: web page, list_dirs"},
		"limit": {Type: "integer", Description: "the most tools to return (default 5, at most 20)"},
	},
	Required:             []string{"query"},
	AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
}

// ToolSearchInput is tool_search's arguments.
type ToolSearchInput struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// ToolSearchLimit is how many tools a search returns unless asked for fewer
// or more (at most 20).
const ToolSearchLimit = 5

// SearchTools returns the deferred definitions that best match query, best
// first, at most limit (default [ToolSearchLimit]): a tool named in the query
// comes first, then tools by how many of the query's words their name,
// description and parameter names hold. Nothing matching gives none.
func SearchTools(defs []ToolDefinition, query string, limit int) []ToolDefinition {
	if limit <= 0 {
		limit = ToolSearchLimit
	}
	limit = min(limit, 20)
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == ':'
	})
	type scored struct {
		def   ToolDefinition
		score int
	}
	var hits []scored
	for _, d := range defs {
		if !d.Deferred {
			continue
		}
		if s := searchScore(d, words); s > 0 {
			hits = append(hits, scored{d, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]ToolDefinition, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.def)
	}
	return out
}

func searchScore(d ToolDefinition, words []string) int {
	name := strings.ToLower(d.Name)
	text := strings.ToLower(d.Description)
	if d.Parameters != nil {
		for p := range d.Parameters.Properties {
			text += " " + strings.ToLower(p)
		}
	}
	score := 0
	for _, w := range words {
		switch {
		case w == name:
			score += 100
		case len(w) < 3:
			// "a", "of", "it": in every description.
		case strings.Contains(name, w):
			score += 10
		case strings.Contains(text, w):
			score++
		}
	}
	return score
}

// ToolSearchResult is what a tool search answers: the definitions found, as
// the model reads them and as a Responses driver loads them.
type ToolSearchResult struct {
	Tools []ToolDefinition `json:"tools"`
	// Note tells the model what to do when nothing matched.
	Note string `json:"note,omitempty"`
}

// ParseToolSearch reads a tool search's arguments.
func ParseToolSearch(args json.RawMessage) (ToolSearchInput, error) {
	var in ToolSearchInput
	err := json.Unmarshal(args, &in)
	return in, err
}
