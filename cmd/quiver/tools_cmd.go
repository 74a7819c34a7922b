package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/tool"
	"github.com/spf13/cobra"
)

// toolJSON is one entry of `quiver tools --json`.
type toolJSON struct {
	Name         string             `json:"name"`
	Description  string             `json:"description"`
	InputSchema  *jsonschema.Schema `json:"input_schema"`
	OutputSchema *jsonschema.Schema `json:"output_schema,omitempty"`
	Risk         tool.Risk          `json:"risk"`
	Annotations  tool.Annotations   `json:"annotations"`
	Provider     string             `json:"provider"`
	Shadowed     []string           `json:"shadowed,omitempty"` // lower-priority providers offering the same name
	Allowed      bool               `json:"allowed"`            // offered to a model under the current policy
	// Policy is what the policy says about the tool's calls: "allow", "ask"
	// or "deny" for a call no specifier rule matches, then the decisions
	// some calls get instead: "ask (some calls allowed)".
	Policy string `json:"policy"`
	// Hooks are the hooks that run for the tool's calls, in order.
	Hooks []hookJSON `json:"hooks,omitempty"`
}

// hookJSON is one hook that runs for a tool.
type hookJSON struct {
	Event   hooks.Event `json:"event"`
	Hook    string      `json:"hook"`
	Matcher string      `json:"matcher,omitempty"`
	Source  string      `json:"source,omitempty"` // where it is written
}

// providerJSON is one provider's state in `quiver tools --json`.
type providerJSON struct {
	ID       string `json:"id"`
	Priority int    `json:"priority"`
	Tools    int    `json:"tools"`
	Error    string `json:"error,omitempty"`
}

func (a *app) toolsCommand() *cobra.Command {
	var tokens bool
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the tools, which provider serves each, and whether the policy offers it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tk, err := a.toolkit()
			if err != nil {
				return err
			}
			defer a.close()
			if tokens {
				return a.tokens(cmd, tk)
			}
			entries, err := tk.Registry().Entries(cmd.Context())
			if err != nil {
				return err
			}
			var list []toolJSON
			for _, e := range entries {
				t := e.Tool
				offer := tk.Offer(*e)
				in, out := t.Schemas()
				list = append(list, toolJSON{Name: t.Name, Description: t.Description, InputSchema: in,
					OutputSchema: out, Risk: t.Risk, Annotations: t.Annotations, Provider: e.Provider,
					Shadowed: e.Shadowed, Allowed: offer.Offered(), Policy: offer.String(), Hooks: toolHooks(tk.Hooks(), t.Name)})
			}
			var provs []providerJSON
			for _, s := range tk.Registry().Status(cmd.Context()) {
				p := providerJSON{ID: s.ID, Priority: s.Priority, Tools: s.Tools}
				if s.Err != nil {
					p.Error = s.Err.Error()
				}
				provs = append(provs, p)
			}
			if a.flags.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Tools     []toolJSON     `json:"tools"`
					Providers []providerJSON `json:"providers"`
					Config    configJSON     `json:"config"` // the layers in force, as config check --json
				}{list, provs, layersJSON(a.cfg)})
			}
			return a.printTools(cmd, list, provs, tk.Policy().ProtectedPaths())
		},
	}
	cmd.Flags().BoolVar(&tokens, "tokens", false, "print what the offered tools cost a model: o200k tokens per tool and in total, in each API's form (needs quiver-models)")
	return cmd
}

// tokens is `quiver tools --tokens`.
func (a *app) tokens(cmd *cobra.Command, tk *quiver.Toolkit) error {
	d := deferral(a.cfg, driver.ToolChoice{})
	in, err := catalogInput(cmd.Context(), tk, d)
	if err != nil {
		return err
	}
	out := tokensJSON{Encoding: "o200k_base"}
	if out.Forms, err = a.measure(cmd.Context(), in); err != nil {
		return err
	}
	front, deferred := upFront(in, d)
	if out.UpFront, err = a.measure(cmd.Context(), front); err != nil {
		return err
	}
	out.Deferred = deferred
	if a.flags.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return printTokens(cmd.OutOrStdout(), out)
}

func (a *app) printTools(cmd *cobra.Command, list []toolJSON, provs []providerJSON, protected []string) error {
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tRISK\tPROVIDER\tPOLICY\tDESCRIPTION")
	for _, t := range list {
		prov := t.Provider
		if len(t.Shadowed) > 0 {
			prov += " (over " + strings.Join(t.Shadowed, ", ") + ")"
		}
		pol := t.Policy
		if !t.Allowed {
			pol += ", not offered"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.Name, t.Risk, prov, pol, firstLine(t.Description))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "writing a protected path always asks: %s\n", strings.Join(protected, ", "))
	for _, t := range list {
		if len(t.Hooks) == 0 {
			continue
		}
		var hs []string
		for _, h := range t.Hooks {
			hs = append(hs, string(h.Event)+" "+h.Hook)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "hooks of %s: %s\n", t.Name, strings.Join(hs, "; "))
	}
	for _, p := range provs {
		if p.Error != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "provider %s unavailable: %s\n", p.ID, p.Error)
		}
	}
	for _, line := range a.notes() {
		fmt.Fprintln(cmd.OutOrStdout(), line)
	}
	return nil
}

// notes are the lines `quiver tools` prints after the table, about the
// sources wired in: whether the project's configuration is loaded whole
// (the line also printed on standard error), which program backs each search tool (and what to
// install for a faster one), which scripts are not tools, which MCP tools
// were left out.
func (a *app) notes() []string {
	var trust []string
	if line := trustNotice(a.cfg); line != "" {
		trust = []string{line}
	}
	return slices.Concat(trust, a.cliNotes(), a.scriptNotes(), a.mcpNotes(), a.hookNotes)
}

// toolHooks lists the hooks that run for the tool called name.
func toolHooks(set *hooks.Set, name string) []hookJSON {
	var out []hookJSON
	for _, m := range set.Matching(name) {
		out = append(out, hookJSON{Event: m.Event, Hook: m.Hook, Matcher: m.Matcher, Source: m.Source})
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
