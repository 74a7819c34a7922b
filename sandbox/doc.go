// Package sandbox confines every process Quiver starts — exec_command's
// programs in the foreground and the background, custom command tools,
// script tools, the rg and fd of the CLI provider, the git of
// git_status_summary and MCP servers started over stdio — with the kernel,
// not with string checks.
//
// The policy decides whether a call may run; a [Profile] bounds what the
// process it starts can do once it runs, whatever the program turns out to
// do. A profile is derived from the write scope:
//
//	read-only        it may read the file system, and write nothing but
//	                 /dev/null and the like
//	workspace-write  it may write the workspace, a private temporary
//	                 directory made for the call (its TMPDIR, removed
//	                 afterwards) and the operator's extra writable roots
//	unrestricted     no confinement: the explicit opt-out, for hosts that
//	                 bring their own isolation (a container)
//
// Under the first two, the network is off unless the operator turns it on,
// and the protected paths inside the workspace (the config in use, .quiver/,
// .git/hooks, .git/config and the operator's list) stay read-only.
//
// # Mechanism, and why
//
// Three kernel features, each for what it is best at:
//
//   - Landlock (ABI 3 or later) for the file system: an allowlist of
//     writable trees, applied to the process and everything it starts. It
//     needs no privilege and follows the file actually opened, so symlinks
//     and other spellings change nothing. Reads stay open (see below).
//   - A mount namespace (inside a new user namespace, so no privilege is
//     needed) for the protected paths: Landlock grants a tree whole and
//     cannot take a file back out of a writable workspace, so each protected
//     path is bind-mounted read-only over itself, and each directory between
//     it and the workspace root is bind-mounted over itself, which makes it a
//     mount point that cannot be renamed or removed (EBUSY) — otherwise
//     `mv .git x && mkdir .git` would swap the protected files out.
//   - A network namespace for the network: the process gets one of its own
//     with nothing in it but a loopback interface, so TCP, UDP, raw
//     sockets, multipath TCP and abstract Unix sockets reach nothing outside
//     it — the host's 127.0.0.1 included — while a program's own tests can
//     still listen and connect on its private 127.0.0.1. Landlock's TCP
//     rules (ABI 4) cover TCP alone, not multipath TCP or UDP, and would
//     forbid that private loopback too; a seccomp filter (Codex's way) would
//     have to enumerate socket families and io_uring, and also forbids
//     loopback servers; a namespace leaves nothing to enumerate. Where
//     Landlock has them, its scopes (ABI 6: abstract sockets, signals) are
//     added as a second wall.
//
// bubblewrap would give the same mounts, but as a second program to install
// and start, and no Landlock; Quiver's own launcher costs one exec of the
// host binary.
//
// # The launcher
//
// Go cannot run code between fork and exec, so the profile is applied by a
// launcher: Quiver starts its own executable (/proc/self/exe) in new user,
// mount and (network off) network namespaces, with the profile in an
// environment variable. This package's init function sees that variable,
// sets up the mounts, restricts itself with Landlock, drops every capability
// and execs the program, which therefore runs confined from its first
// instruction. Because the launcher lives in an init function, any program
// that links this package — the quiver binary, a host that embeds Quiver as a
// library, a test binary — is its own launcher: a host needs to do nothing,
// as long as it does not hide its init functions (a host that re-execs
// itself for its own purposes must not set QUIVER_SANDBOX_SPEC).
//
// # Failing closed
//
// Where the kernel cannot enforce a profile (no Landlock, an ABI older than
// 3, user namespaces forbidden), [Profile.Wrap] refuses with an
// [*UnavailableError] that names what is missing and the settings that opt
// out: write_scope = "unrestricted", or [sandbox] enabled = false for a host
// that isolates Quiver itself. Nothing ever runs unconfined silently.
// [Check] reports what this machine supports; `quiver sandbox check` prints
// it.
//
// # What the sandbox does not do
//
//   - Reads stay open under every profile, as in Codex: a confined process
//     can read any file its user can (~/.ssh included). The file tools are
//     held to the workspace by package workspace; processes are not.
//     (The CLI provider's rg and fd are the exception: they may read only
//     the workspace and the system's program directories, see
//     [Profile.Readable].)
//   - Named Unix sockets on the file system (a Docker socket, an ssh-agent)
//     can still be connected to: the kernel here has no Landlock right for it
//     (ABI 9 adds one).
//   - A protected path that does not exist when the process starts cannot
//     be mounted over: a process may create quiver.toml or .quiver/ where
//     there were none. Quiver creates an empty .git/hooks when .git exists
//     without one, so that case is covered.
//   - Resource limits (CPU, memory, processes) are not set; timeouts and
//     the process-group kill of package shell bound time only.
package sandbox
