package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) configCommand() *cobra.Command {
	cfg := &cobra.Command{Use: "config", Short: "Work with quiver.toml"}
	cfg.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Load the configuration and report the first problem with its file, line and column",
		Args:  cobra.NoArgs,
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
			fmt.Fprintln(cmd.OutOrStdout(), name+": ok")
			return nil
		},
	})
	return cfg
}
