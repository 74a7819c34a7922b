package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/quiverkit/quiver/config"
	"github.com/spf13/cobra"
)

// trustFlags are the flags of `quiver trust`.
type trustFlags struct {
	revoke, list bool
}

func (a *app) trustCommand() *cobra.Command {
	var f trustFlags
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a project's own configuration (quiver.toml, quorum.toml, .quiver/tools) as it is now",
		Long: `Record DIR (default: --root, else the current directory) as trusted, with the sha256 of each
of its project files: quiver.toml, quorum.toml and the files of .quiver/tools. The record is kept
in the user's configuration directory (trust.json beside config.toml), never in the project.

A project's configuration is loaded whole only while its files are exactly the ones trusted: a
file added, removed or changed by one byte, or the directory moved, makes it untrusted again,
and then only its keys that tighten the policy apply (deny and ask rules, protected paths, a
stricter default or a narrower write scope); its custom tools, scripts and MCP servers, which
are code, are not run. Trust what you have read: a trusted project may loosen the policy,
start servers and run its scripts.

--revoke forgets DIR; --list shows every trusted project and whether it is unchanged.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := a.flags.root
			if len(args) == 1 {
				dir = args[0]
			}
			if dir == "" {
				dir = "."
			}
			var err error
			switch {
			case f.list && (f.revoke || len(args) > 0):
				err = fmt.Errorf("--list takes no directory and no --revoke")
			case f.list:
				err = a.trustList(cmd.OutOrStdout())
			case f.revoke:
				err = a.trustRevoke(cmd.OutOrStdout(), dir)
			default:
				err = a.trustAdd(cmd.OutOrStdout(), dir)
			}
			if err != nil {
				return &exitError{code: exitUsage, msg: "quiver trust: " + err.Error()}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&f.revoke, "revoke", false, "forget DIR's trust")
	cmd.Flags().BoolVar(&f.list, "list", false, "list the trusted projects")
	return cmd
}

// trustStore opens the user's trust record for the project in dir; it
// refuses a user configuration directory inside the project, where what
// runs in the project could trust itself.
func trustStore(dir string) (*config.Trust, *config.Project, error) {
	userDir, err := config.UserDir()
	if err != nil {
		return nil, nil, err
	}
	// LoadLayers refuses what must be refused (a broken file, a user
	// directory inside the project) before anything is recorded.
	if _, err := config.LoadLayers(config.LoadOptions{Dir: dir, UserDir: userDir}); err != nil {
		return nil, nil, err
	}
	proj, err := config.ReadProject(dir)
	if err != nil {
		return nil, nil, err
	}
	t, err := config.ReadTrust(userDir)
	if err != nil {
		return nil, nil, err
	}
	return t, proj, nil
}

func (a *app) trustAdd(w io.Writer, dir string) error {
	t, proj, err := trustStore(dir)
	if err != nil {
		return err
	}
	if proj.Empty() {
		return fmt.Errorf("%s has no project configuration (%s, %s): nothing to trust",
			proj.Dir, strings.Join(config.FileNames, ", "), config.ScriptsDir)
	}
	if err := t.Add(proj, time.Now()); err != nil {
		return err
	}
	cfg, err := config.LoadLayers(config.LoadOptions{Dir: proj.Dir})
	if err != nil {
		return err
	}
	if a.flags.json {
		return writeJSON(w, layersJSON(cfg))
	}
	fmt.Fprintf(w, "trusted %s (recorded in %s):\n", proj.Dir, t.Path())
	for _, name := range slices.Sorted(maps.Keys(proj.Files)) {
		fmt.Fprintf(w, "  %s  sha256 %s\n", name, proj.Files[name])
	}
	fmt.Fprintln(w, "a change to any of these files makes it untrusted again.")
	printLayers(w, cfg)
	return nil
}

func (a *app) trustRevoke(w io.Writer, dir string) error {
	userDir, err := config.UserDir()
	if err != nil {
		return err
	}
	t, err := config.ReadTrust(userDir)
	if err != nil {
		return err
	}
	proj, err := config.ReadProject(dir)
	if err != nil {
		return err
	}
	removed := t.Remove(proj.Dir)
	if removed {
		if err := t.Save(); err != nil {
			return err
		}
	}
	if a.flags.json {
		return writeJSON(w, map[string]any{"dir": proj.Dir, "revoked": removed})
	}
	if !removed {
		fmt.Fprintf(w, "%s was not trusted\n", proj.Dir)
		return nil
	}
	fmt.Fprintf(w, "%s is no longer trusted\n", proj.Dir)
	return nil
}

// trustedJSON is one entry of `quiver trust --list --json`.
type trustedJSON struct {
	config.TrustRecord
	State config.TrustState `json:"state"` // as the directory is now; "missing" when it is gone
}

func (a *app) trustList(w io.Writer) error {
	userDir, err := config.UserDir()
	if err != nil {
		return err
	}
	t, err := config.ReadTrust(userDir)
	if err != nil {
		return err
	}
	var list []trustedJSON
	for _, r := range t.Records() {
		state := config.TrustState("missing")
		if p, err := config.ReadProject(r.Dir); err == nil && p.Dir == r.Dir {
			state = t.State(p)
		}
		list = append(list, trustedJSON{TrustRecord: r, State: state})
	}
	if a.flags.json {
		return writeJSON(w, map[string]any{"trust_file": t.Path(), "projects": list})
	}
	if len(list) == 0 {
		fmt.Fprintf(w, "no project is trusted (%s)\n", t.Path())
		return nil
	}
	for _, e := range list {
		fmt.Fprintf(w, "%s\t%s\ttrusted %s\t%d files\n", e.Dir, e.State, e.TrustedAt.Format(time.DateTime), len(e.Files))
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
