package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/quiverkit/quiver/config"
	"github.com/spf13/cobra"
)

func (a *app) configCommand() *cobra.Command {
	cfg := &cobra.Command{Use: "config", Short: "Work with quiver.toml"}
	cfg.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Load the configuration, say which files are in force and why, and report the first problem with its file, line and column",
		Long: "Load the configuration — the operator's (--config FILE, else the user's config.toml), then the\n" +
			"project's (quiver.toml, or quorum.toml as the plugin tool system writes it, and .quiver/tools) —\n" +
			"and build every tool source it declares. Say which files are in force, whether the project is\n" +
			"trusted (quiver trust) and, when it is not, which of its keys apply and which were dropped.\n" +
			"Then which sources are on, which program backs each search tool or why the builtin engine\n" +
			"does, what aliases Quiver does not follow and why, and the review in force. A rule naming no\n" +
			"tool is an error. --json prints the layers, or the problem as an object: code, message, and its\n" +
			"file, line and col where they are known.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.loadConfig()
			if err != nil {
				return a.checkFailed(cmd.OutOrStdout(), err)
			}
			tk, err := a.toolkit()
			if err != nil {
				return a.checkFailed(cmd.OutOrStdout(), err)
			}
			defer a.close()
			elsewhere := config.ElsewhereToolRefs(c, a.catalogue(cmd.Context(), c, tk.Registry()))
			out := cmd.OutOrStdout()
			if a.flags.json {
				j := layersJSON(c)
				j.Elsewhere = elsewhere
				return writeJSON(out, j)
			}
			name := c.Path
			if name == "" {
				name = "(no configuration file; defaults)"
			}
			fmt.Fprintln(out, name+": ok")
			printLayers(out, c)
			for _, r := range elsewhere {
				fmt.Fprintf(out, "note: %s: %s names no tool here: %q (taken for a tool of another project the user file governs)\n", r.Pos, r.Key, r.Tool)
			}
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

// configErrorJSON is `quiver config check --json` when the configuration
// is wrong: the first problem, with its place when it is known.
type configErrorJSON struct {
	Code    string `json:"code"` // always CONFIG_INVALID
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
}

// checkFailed reports err, a usage error of loading the configuration or
// building its tools: on standard error as every command does, or under
// --json as a configErrorJSON on standard output.
func (a *app) checkFailed(w io.Writer, err error) error {
	if !a.flags.json {
		return err
	}
	j := configErrorJSON{Code: "CONFIG_INVALID", Message: err.Error()}
	var ex *exitError
	if errors.As(err, &ex) && ex.err != nil {
		j.Message = ex.err.Error()
	}
	var pos config.Position
	var ce *config.Error
	var ue *config.UnknownToolError
	switch {
	case errors.As(err, &ce):
		pos, j.Message = ce.Pos, ce.Msg
	case errors.As(err, &ue):
		pos, j.Message = ue.Ref.At, ue.Message()
	}
	j.File, j.Line, j.Col = pos.File, pos.Line, pos.Col
	if werr := writeJSON(w, j); werr != nil {
		return werr
	}
	return &exitError{code: exitUsage}
}

// configJSON is `quiver config check --json` and `quiver trust --json`.
type configJSON struct {
	Layers []config.Layer `json:"layers"`
	// Project is the project directory and its trust, when it has files.
	Project *projectJSON `json:"project,omitempty"`
	// Elsewhere are the user file's rules naming no tool here, taken for
	// tools of other projects (config.ElsewhereToolRefs); config check only.
	Elsewhere []config.ToolRef `json:"rules_naming_no_tool_here,omitempty"`
}

type projectJSON struct {
	Dir   string            `json:"dir"`
	Trust config.TrustState `json:"trust"`
	Files map[string]string `json:"files"`
	// Trust is the command that would load it whole, when it is not.
	TrustCommand string `json:"trust_command,omitempty"`
}

func layersJSON(c *config.Config) configJSON {
	out := configJSON{Layers: c.Layers}
	if out.Layers == nil {
		out.Layers = []config.Layer{}
	}
	if p := c.Project; p != nil && !p.Empty() {
		out.Project = &projectJSON{Dir: p.Dir, Trust: c.ProjectState, Files: p.Files}
		if c.ProjectState != config.Trusted {
			out.Project.TrustCommand = "quiver trust " + shellQuote(p.Dir)
		}
	}
	return out
}

// printLayers shows a newcomer which files are in force and why: each
// layer, a project's trust, and for a project not trusted the keys kept
// and dropped.
func printLayers(w io.Writer, c *config.Config) {
	fmt.Fprintln(w, "configuration in force (later layers add to earlier ones):")
	if len(c.Layers) == 0 {
		fmt.Fprintln(w, "  none: defaults (no --config, no user config.toml, no project file)")
	}
	for _, l := range c.Layers {
		switch {
		case l.Kind != config.LayerProject:
			fmt.Fprintf(w, "  %-9s %s  (the operator's: trusted)\n", l.Kind, l.Path)
		case l.Trust == config.Trusted:
			fmt.Fprintf(w, "  %-9s %s  (trusted with quiver trust: loaded whole)\n", l.Kind, l.Path)
		default:
			fmt.Fprintf(w, "  %-9s %s  (%s: only keys that tighten apply)\n", l.Kind, l.Path, l.Trust)
			for _, k := range l.Kept {
				fmt.Fprintf(w, "            applied  %s\n", k)
			}
			for _, k := range l.Dropped {
				fmt.Fprintf(w, "            dropped  %s\n", k)
			}
		}
	}
	if p := c.Project; p != nil && !p.Empty() {
		if p.File != "" && len(c.Layers) > 0 && c.Layers[0].Kind == config.LayerExplicit {
			fmt.Fprintf(w, "  %-9s %s  (not read: --config replaces it)\n", config.LayerProject, filepath.Join(p.Dir, p.File))
		}
		var scripts []string
		for name := range p.Files {
			if strings.HasPrefix(name, config.ScriptsDir+"/") {
				scripts = append(scripts, name)
			}
		}
		if len(scripts) > 0 {
			run := "run"
			if c.ProjectState != config.Trusted {
				run = "not run"
			}
			fmt.Fprintf(w, "  scripts   %d in %s: %s (project %s)\n", len(scripts), config.ScriptsDir, run, c.ProjectState)
		}
		if c.ProjectState != config.Trusted {
			fmt.Fprintf(w, "  to trust the project as it is now: quiver trust %s\n", shellQuote(p.Dir))
		}
	}
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
