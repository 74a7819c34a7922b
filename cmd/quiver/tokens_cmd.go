package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/catalog"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/sandbox"
)

// tokensJSON is `quiver tools --tokens --json`.
type tokensJSON struct {
	Encoding string `json:"encoding"`
	// Forms price the whole catalogue, nothing deferred.
	Forms []catalog.Cost `json:"forms"`
	// UpFront prices what a model holds up front with the configuration's
	// deferral: the tools not deferred and tool_search (see upFront).
	UpFront  []catalog.Cost `json:"up_front"`
	Deferred []string       `json:"deferred"`
}

// catalogInput is the catalogue a model is offered — the tools the policy
// offers, as `quiver run` sends them — and the tools/list entries
// `quiver serve` sends for the same tools.
func catalogInput(ctx context.Context, tk *quiver.Toolkit, d *driver.Deferral) (catalog.Input, error) {
	allowed, err := tk.AllowedTools(ctx)
	if err != nil {
		return catalog.Input{}, err
	}
	in := catalog.Input{Tools: driver.Definitions(allowed, false)}
	for _, t := range allowed {
		b, err := json.Marshal(mcpserver.ToolEntry(t, d))
		if err != nil {
			return catalog.Input{}, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		in.MCP = append(in.MCP, b)
	}
	return in, nil
}

// upFront is the catalogue a model is shown up front under d: the tools
// not deferred, then Quiver's tool_search naming the others. Anthropic and
// OpenAI Responses send their own search tool instead, and the deferred
// definitions travel marked, out of the model's context; this is what
// occupies it. The MCP form is left out: an MCP client decides what it
// defers (quiver serve marks the core tools with anthropic/alwaysLoad).
func upFront(full catalog.Input, d *driver.Deferral) (catalog.Input, []string) {
	marked := d.Mark(full.Tools, nil)
	var deferred []string
	for _, t := range marked {
		if t.Deferred {
			deferred = append(deferred, t.Name)
		}
	}
	return catalog.Input{Tools: driver.UpFront(marked)}, deferred
}

// measure prices in with `quiver-models catalog`: the forms are the SDKs'
// and the tokenizer's vocabulary is large, and quiver links neither. The
// program reads the catalogue and writes figures; it runs read-only and
// offline wherever the kernel confines it.
func (a *app) measure(ctx context.Context, in catalog.Input) ([]catalog.Cost, error) {
	path, err := modelsProgram()
	if err != nil {
		return nil, err
	}
	box, err := a.processSandbox(a.cfg, a.workspaceDir(a.cfg), sandbox.Network{})
	if err != nil {
		return nil, err
	}
	if box.Confined() {
		box = box.With(sandbox.ReadOnly)
	}
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	proc := sandbox.Command(ctx, box, path, "catalog")
	proc.Dir, proc.Stdin, proc.Stdout, proc.Stderr = "/", bytes.NewReader(body), &stdout, &stderr
	if err := proc.Run(); err != nil {
		return nil, fmt.Errorf("%s catalog: %w: %s", path, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var costs []catalog.Cost
	if err := json.Unmarshal(stdout.Bytes(), &costs); err != nil {
		return nil, fmt.Errorf("%s catalog: %w", path, err)
	}
	return costs, nil
}

// printTokens writes the table of `quiver tools --tokens`: a row per tool,
// a column per form, the totals, then what is sent up front.
func printTokens(w io.Writer, t tokensJSON) error {
	costs := t.Forms
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "TOOL\t")
	for _, c := range costs {
		fmt.Fprintf(tw, "%s\t", c.Form)
	}
	fmt.Fprintln(tw)
	if len(costs) > 0 {
		for i, t := range costs[0].Tools {
			fmt.Fprintf(tw, "%s\t", t.Name)
			for _, c := range costs {
				if i < len(c.Tools) {
					fmt.Fprintf(tw, "%d\t", c.Tools[i].Tokens)
				} else {
					fmt.Fprint(tw, "-\t")
				}
			}
			fmt.Fprintln(tw)
		}
	}
	fmt.Fprint(tw, "total, nothing deferred\t")
	for _, c := range costs {
		fmt.Fprintf(tw, "%d\t", c.Total)
	}
	fmt.Fprintln(tw)
	fmt.Fprint(tw, "up front, deferral as configured\t")
	for _, c := range t.UpFront {
		fmt.Fprintf(tw, "%d\t", c.Total)
	}
	fmt.Fprintln(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "deferred behind tool_search ([tools] defer, always_load): %s\n", orNone(t.Deferred))
	_, err := fmt.Fprintln(w, "o200k_base tokens of the compact JSON of the tools array in each form (quiver run sends openai-chat's shape to OpenAI Chat Completions and compatible servers)")
	return err
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
