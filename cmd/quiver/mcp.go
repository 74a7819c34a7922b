package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// mcpClientFlags are the flags of the `quiver mcp` client commands.
type mcpClientFlags struct {
	headers []string
	timeout time.Duration
}

func (a *app) mcpCommand() *cobra.Command {
	var f mcpClientFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Talk to an MCP server over streamable HTTP (list its tools, call one)",
	}
	cmd.PersistentFlags().StringArrayVar(&f.headers, "header", nil, "send this HTTP header, as 'Name: value' (repeatable)")
	cmd.PersistentFlags().DurationVar(&f.timeout, "timeout", 60*time.Second, "give up after this long")
	cmd.AddCommand(&cobra.Command{
		Use:   "tools URL",
		Short: "List an MCP server's tools",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mcpSession(cmd, f, args[0], func(ctx context.Context, cs *mcp.ClientSession) error {
				return a.printMCPTools(ctx, cmd, cs)
			})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "call URL TOOL [ARGS_JSON | -]",
		Short: "Call one tool of an MCP server",
		Long: "Call one tool of an MCP server with JSON arguments (an object; '-' reads them from standard input;\n" +
			"none means {}). The result's text goes to standard output (--json: the whole result);\n" +
			"a result flagged isError exits with status 1.",
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := callArguments(args[1:], cmd.InOrStdin())
			if err != nil {
				return &exitError{code: exitUsage, msg: "quiver mcp call: " + err.Error()}
			}
			if !json.Valid(raw) {
				return &exitError{code: exitUsage, msg: "quiver mcp call: ARGS_JSON is not valid JSON"}
			}
			return a.mcpSession(cmd, f, args[0], func(ctx context.Context, cs *mcp.ClientSession) error {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: args[1], Arguments: raw})
				if err != nil {
					return &exitError{code: exitTool, msg: "quiver mcp call: " + err.Error()}
				}
				return a.printMCPResult(cmd, res)
			})
		},
	})
	return cmd
}

// mcpSession connects to the server at url, runs fn, and disconnects.
func (a *app) mcpSession(cmd *cobra.Command, f mcpClientFlags, url string, fn func(context.Context, *mcp.ClientSession) error) error {
	header := http.Header{}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			return &exitError{code: exitUsage, msg: fmt.Sprintf("quiver mcp: --header %q: want 'Name: value'", h)}
		}
		header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "quiver", Version: buildVersion().Version}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: addHeaders{header, http.DefaultTransport}}}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return &exitError{code: exitTool, msg: fmt.Sprintf("quiver mcp: connect to %s: %v", url, err)}
	}
	defer cs.Close()
	return fn(ctx, cs)
}

type addHeaders struct {
	h    http.Header
	next http.RoundTripper
}

func (t addHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.h) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.h {
			r.Header[k] = v
		}
	}
	return t.next.RoundTrip(r)
}

func (a *app) printMCPTools(ctx context.Context, cmd *cobra.Command, cs *mcp.ClientSession) error {
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return &exitError{code: exitTool, msg: "quiver mcp tools: " + err.Error()}
		}
		tools = append(tools, t)
	}
	if a.flags.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"tools": tools})
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tDESCRIPTION")
	for _, t := range tools {
		fmt.Fprintf(w, "%s\t%s\n", t.Name, firstLine(t.Description))
	}
	return w.Flush()
}

func (a *app) printMCPResult(cmd *cobra.Command, res *mcp.CallToolResult) error {
	if a.flags.json {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		for _, c := range res.Content {
			switch c := c.(type) {
			case *mcp.TextContent:
				fmt.Fprintln(cmd.OutOrStdout(), c.Text)
			case *mcp.ImageContent:
				fmt.Fprintf(cmd.OutOrStdout(), "[image %s, %d bytes]\n", c.MIMEType, len(c.Data))
			default:
				b, _ := json.Marshal(c)
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
			}
		}
	}
	if res.IsError {
		return &exitError{code: exitTool, msg: "quiver mcp call: the tool reported an error"}
	}
	return nil
}
