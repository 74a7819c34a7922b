package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/quiverkit/quiver/sandbox"
)

// sandboxCommand is `quiver sandbox -- CMD ARGS...`: a command run under
// exactly the profile exec_command gives an approved call (the write scope's,
// the [sandbox] settings, the protected paths), so that a user can try what
// the sandbox allows, as with `codex sandbox`; and `quiver sandbox check`.
func (a *app) sandboxCommand() *cobra.Command {
	var network bool
	cmd := &cobra.Command{
		Use:   "sandbox [--network] -- CMD [ARGS...]",
		Short: "Run a command under the sandbox profile exec_command would use (global --write-scope picks the scope)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSandboxed(cmd, args, network)
		},
	}
	cmd.Flags().BoolVar(&network, "network", false, "let the command reach the network")
	cmd.AddCommand(a.sandboxCheckCommand())
	return cmd
}

// sandboxCheckCommand is `quiver sandbox check [--json]`: each layer of the
// sandbox as this machine has it, and what each write scope enforces with
// the [sandbox] settings of quiver.toml. It exits non-zero where confined
// profiles cannot run.
func (a *app) sandboxCheckCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check [--json]",
		Short: "Report what the sandbox enforces on this machine, layer by layer and per write scope",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var sc sandbox.Config
			if cfg, err := a.loadConfig(); err == nil {
				sc = cfg.Sandbox
			}
			r := sandbox.Inspect(sc)
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(r); err != nil {
					return err
				}
			} else {
				printSandboxReport(out, r)
			}
			if !r.Available {
				return &exitError{code: exitTool, msg: "quiver: " + r.Missing}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func printSandboxReport(w io.Writer, r sandbox.Report) {
	if r.Available {
		fmt.Fprintln(w, "sandbox: ok")
	} else {
		fmt.Fprintln(w, "sandbox: unavailable")
	}
	fmt.Fprintf(w, "landlock: ABI %d (kernel %d): %s\n", r.LandlockABI, r.KernelABI, strings.Join(r.LandlockRights, " "))
	fmt.Fprintf(w, "namespaces: %s\n", strings.Join(r.Namespaces, " "))
	fmt.Fprintln(w, "process:")
	for _, l := range r.Process {
		fmt.Fprintf(w, "  - %s\n", l)
	}
	fmt.Fprintln(w, "seccomp, refused (EPERM; other ABIs ENOSYS):")
	for _, rule := range r.Seccomp {
		fmt.Fprintf(w, "  %-18s %s\n", rule.Syscall, rule.Refused)
	}
	for _, p := range r.Profiles {
		fmt.Fprintf(w, "%s:\n", p.Scope)
		for _, e := range p.Enforces {
			fmt.Fprintf(w, "  - %s\n", e)
		}
	}
}

// runSandboxed runs args in the workspace under the toolkit's profile and
// exits with the command's status.
//
// The command's standard streams stay the user's (a terminal, typically),
// so that an interactive program can still be tried out, but the launcher
// starts it in a session of its own: the terminal is not its controlling
// terminal. It therefore cannot push input into the user's shell
// (TIOCSTI), open /dev/tty (ssh, sudo and less's prompts fail), or get job
// control (an interactive bash says so); Ctrl-C, Ctrl-Z and resizes reach
// it through the launcher, which forwards them. SIGTERM and SIGHUP sent to
// quiver are passed on to the command (see relaySignals); once the command
// has ended, so has everything it started.
func (a *app) runSandboxed(cmd *cobra.Command, args []string, network bool) error {
	tk, err := a.toolkit()
	if err != nil {
		return err
	}
	defer a.close()
	box := tk.Sandbox()
	if network {
		box = box.WithNetwork()
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		return &exitError{code: 127, msg: "quiver: " + err.Error()}
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	proc := sandbox.Command(ctx, box, path, args[1:]...)
	proc.Args[0] = args[0]
	proc.Dir, proc.Env = box.Workspace, sandbox.HostEnv(a.cfg.Exec.EnvAllow)
	proc.Stdin, proc.Stdout, proc.Stderr = os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
	proc.Interactive = true
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, relayed...)
	defer signal.Stop(signals)
	if err := proc.Start(); err != nil {
		return &exitError{code: exitTool, msg: "quiver: " + err.Error()}
	}
	stop := relaySignals(proc, signals)
	err = proc.Wait()
	stop()
	var ee *exec.ExitError
	switch {
	case errors.Is(err, sandbox.ErrGitRefused): // what a git did to .git, undone
		return &exitError{code: max(proc.ExitStatus(), 1), msg: "quiver: " + err.Error()}
	case errors.As(err, &ee):
		return &exitError{code: proc.ExitStatus()} // 128 plus the signal that killed it, as a shell says
	case err != nil:
		return &exitError{code: exitTool, msg: "quiver: " + err.Error()}
	}
	return nil
}

// relayed are the signals quiver sandbox catches while its command runs.
var relayed = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, os.Interrupt, syscall.SIGQUIT}

// relaySignals passes SIGTERM and SIGHUP, sent to quiver alone (kill, a
// service manager), on to the command, instead of quiver dying at once
// and leaving the command (unconfined, nothing else ends it) or ending it
// without a chance to clean up (confined, its launcher dies with quiver).
// SIGINT and SIGQUIT are caught and not passed on, as a shell waiting for
// a foreground job does: the terminal sends them to the command itself,
// which stays in quiver's process group (Interactive). It returns the
// function that stops relaying.
func relaySignals(proc *sandbox.Process, signals <-chan os.Signal) (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-signals:
				if sig == syscall.SIGTERM || sig == syscall.SIGHUP {
					proc.Signal(sig)
				}
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}
