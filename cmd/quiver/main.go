// Command quiver is the command line of the Quiver tool runtime: list the
// tools, call one, check a configuration, serve the tools over MCP, run an
// agent. It is thin on purpose — flags and output only; every decision is
// made by the library, through the same pipeline a Go host uses.
//
// Exit status: 0 success, 1 the tool failed (its error code is printed), 2
// the command line or the configuration is wrong. Ctrl-C or SIGTERM during
// `quiver call` cancels the call (status 1, CANCELLED), except a call to a
// read-only tool that reaches no network and starts no process: nothing of
// it can be left behind, so the signal ends the process as it ends any
// program that does not handle it, without the cost of listening for it
// (call.go, interruptible).
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Exit statuses.
const (
	exitOK    = 0
	exitTool  = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	a := &app{}
	root := a.rootCommand()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ex *exitError
	if errors.As(err, &ex) {
		if ex.msg != "" {
			fmt.Fprintln(os.Stderr, ex.msg)
		}
		return ex.code
	}
	fmt.Fprintln(os.Stderr, usageError(err).msg)
	return exitUsage
}

// exitError carries an exit status out of a command.
type exitError struct {
	code int
	msg  string
	err  error // the cause, for a command that reports it otherwise (--json)
}

func (e *exitError) Error() string { return e.msg }

func (e *exitError) Unwrap() error { return e.err }

// usageError is err as a usage error (exit status 2). An error of the
// library already starts "quiver: ", which is said once.
func usageError(err error) *exitError {
	return &exitError{code: exitUsage, msg: "quiver: " + strings.TrimPrefix(err.Error(), "quiver: "), err: err}
}

// rootCommand is the whole command tree: the flags every command shares,
// then each subcommand. Nothing registers itself from elsewhere; a new
// command is added here.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "quiver",
		Short:         "A tool runtime for LLM agents",
		Long:          "Quiver gives an agent a catalogue of well-made tools and one trustworthy way to run them:\npolicy, approval, validation, a workspace the tool cannot escape, and stable error codes.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion().String(), // --version, printed as `quiver version` prints it
	}
	root.SetVersionTemplate("quiver {{.Version}}\n")
	f := root.PersistentFlags()
	f.StringVar(&a.flags.root, "root", "", "workspace root (default: [workspace] root, else the current directory)")
	f.StringVar(&a.flags.config, "config", "", "the whole configuration (default: the user's config.toml, then the project's quiver.toml, whole only when trusted: see quiver trust)")
	f.StringVar(&a.flags.writeScope, "write-scope", "", "read-only, workspace-write or unrestricted")
	f.BoolVar(&a.flags.yes, "yes", false, "approve every call the policy would ask about")
	f.BoolVar(&a.flags.json, "json", false, "machine-readable output")
	f.StringVar(&a.flags.audit, "audit", "", "append one JSON audit line per call to this file")
	root.AddCommand(
		a.toolsCommand(),
		a.callCommand(),
		a.configCommand(),
		a.versionCommand(),
		a.mcpCommand(),
		a.runCommand(),
		a.sandboxCommand(),
		a.serveCommand(),
		a.trustCommand(),
	)
	usageOnArgErrors(root)
	return root
}

// usageOnArgErrors gives every command's argument check its usage line:
// cobra's own says only "accepts 1 arg(s), received 0", and a usage error
// should say what the usage is. It wraps the checks of the whole tree here,
// so that a command added later has it too.
func usageOnArgErrors(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return fmt.Errorf("%s %w\nusage: %s", c.CommandPath(), err, c.UseLine())
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		usageOnArgErrors(sub)
	}
}
