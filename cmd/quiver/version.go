package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version, when set at build time with -ldflags "-X main.version=...", is
// the version printed; otherwise it is the module's, from the build info.
var version string

// versionJSON is what `quiver version` says: the module's version and, for
// a build from a clone, the commit it was built from.
type versionJSON struct {
	Version string `json:"version"`
	// Revision, Time and Modified are the version control stamp the go
	// command records building inside a clone (absent with -buildvcs=false).
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// buildVersion reads the build info the go command embeds in every binary:
// a version from the module proxy, or the pseudo-version and commit of a
// clone.
func buildVersion() versionJSON {
	v := versionJSON{Version: version, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if v.Version == "" {
			v.Version = "unknown"
		}
		return v
	}
	if v.Version == "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one line `quiver version` and `quiver --version` print.
func (v versionJSON) String() string {
	s := v.Version
	if v.Revision != "" {
		s += " (" + v.Revision
		if v.Time != "" {
			s += ", " + v.Time
		}
		if v.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + v.Go
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version: the module's, the commit of a build from a clone, and Go's",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := buildVersion()
			if a.flags.json {
				return writeJSON(cmd.OutOrStdout(), v)
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "quiver", v)
			return err
		},
	}
}
