package main

import (
	"fmt"
	"strings"

	"github.com/quiverkit/quiver/config"
	"github.com/spf13/cobra"
)

func (a *app) configCommand() *cobra.Command {
	cfg := &cobra.Command{Use: "config", Short: "Work with quiver.toml"}
	cfg.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Load the configuration and report the first problem with its file, line and column",
		Long: "Load the configuration (quiver.toml, or quorum.toml as the plugin tool system writes it) and build\n" +
			"every tool source it declares. On success, say which sources are on, which program backs each\n" +
			"search tool or why the builtin engine does, what aliases Quiver does not follow and why, and the\n" +
			"review in force.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.loadConfig()
			if err != nil {
				return err
			}
			if _, err := a.toolkit(); err != nil {
				return err
			}
			defer a.close()
			name := c.Path
			if name == "" {
				name = "(no configuration file; defaults)"
			}
			out := cmd.OutOrStdout()
			fmt.Fprintln(out, name+": ok")
			fmt.Fprintln(out, sourcesNote(c))
			for _, line := range a.cliNotes() {
				fmt.Fprintln(out, line)
			}
			fmt.Fprintln(out, reviewNote(c))
			return nil
		},
	})
	return cfg
}

// sourcesNote names the tool sources that are on, most preferred first when
// [tools] providers orders them.
func sourcesNote(c *config.Config) string {
	var on, off []string
	for _, k := range []string{config.KindBuiltin, config.KindCLI, config.KindCustom, config.KindScript, config.KindMCP} {
		if c.Tools.ProviderOn(k) {
			on = append(on, fmt.Sprintf("%s (priority %d)", k, priorityOf(c, k)))
		} else {
			off = append(off, k)
		}
	}
	line := "tool sources on: " + strings.Join(on, ", ")
	if len(off) > 0 {
		line += "; off: " + strings.Join(off, ", ")
	}
	return line
}
