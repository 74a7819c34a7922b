// Package sandbox confines every process Quiver starts — exec_command's
// programs in the foreground and the background, custom command tools,
// script tools, the rg and fd of the CLI provider, the git of
// git_status_summary, MCP servers started over stdio and quiver-models —
// with the kernel, not with string checks, each started through one path
// (see The start path).
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
// Under the first two, the network is off unless the operator allows every
// host ([Network]: [sandbox] network = true) or names some (a list: the
// process reaches those over HTTP and CONNECT through Quiver's proxy, and
// nothing else; see The network proxy), and the protected paths inside the workspace (the config in use, .quiver/,
// all of .git and the operator's list) stay read-only.
//
// # Git's metadata
//
// git trusts everything in .git: besides config and hooks, a commondir or a
// .git file sends it to another repository, objects/info/alternates to
// other objects, info/attributes picks drivers, worktrees/ and modules/
// hold further git directories, and an index entry of mode 160000 (a
// gitlink) makes the user's next git status enter a nested repository and
// run what its config names. So the design is Codex's, with a way for
// commits (see gitmeta.go, gitguard.go):
//
//   - Every confined process finds all of .git read-only: the directory or
//     the file, the git directory a .git file names and its common
//     directory (resolved when each process starts, as git resolves them),
//     and every submodule's .git (or its empty directory when it is not
//     checked out). A whole-directory mount pins files that do not exist
//     yet, such as commondir, and .git itself becomes a mount point that
//     cannot be renamed or removed.
//   - A git under workspace-write ([Profile.ForProgram]: a program named
//     git that no confined process could have written, started by any
//     tool; every such command was approved, since one the classifier calls
//     read-only runs read-only) may write .git, so that add and commit
//     work, except what names programs or locations (gitPinned), made
//     first when missing so that it can be pinned. What cannot be made
//     ahead — commondir — and
//     what add writes legitimately but can point elsewhere — a gitlink in
//     the index — are checked after the git exits ([GitGuard]): a new
//     commondir is removed, an index that gained a gitlink is restored,
//     and the command fails saying why.
//   - The file tools' protection (package policy) covers any path with a
//     .git component, by its resolved path, and the git directories a .git
//     file names.
//   - A read-only git runs no program: [GitArgs] adds --no-ext-diff and
//     --no-textconv, the environment sets no hooks and no signature check,
//     and Landlock lets it execute only git, its exec path and its loader,
//     so filters, textconv, fsmonitor, pagers, gpg and credential helpers
//     named by a nested repository's config fail to start. One way
//     remains: the loader itself (ld.so) must be executable for git to
//     start, and a driver command naming it can load a program from a
//     file; that program runs read-only, without network, as the command
//     itself does.
//
// # Mechanism, and why
//
// Three kernel features, each for what it is best at, and a seccomp filter
// (below) for what none of them sees:
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
//     `mv .git x && mkdir .git` would swap the protected files out. A
//     protected path that is a symbolic link, or lies beyond one, is
//     pinned too: the link is mounted over itself (open_tree and
//     move_mount, which do not follow it), so it can be neither removed
//     nor renamed, and what it points to is protected in turn, through
//     chains and out of the workspace. A link whose target is missing
//     where a confined process could create it refuses the start.
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
// # The network proxy
//
// With [sandbox] network a list of host patterns, a confined process keeps
// its network namespace, loopback only, and reaches the listed hosts
// through Quiver's proxy (package netproxy), as Codex and Anthropic's
// sandbox-runtime do: HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (and their
// lower-case forms) point at a port of the namespace's loopback; NO_PROXY
// keeps the loopback's names direct. sandbox-runtime bind-mounts the
// proxy's Unix socket into the sandbox and bridges it with socat; here
// nothing confined may make a Unix socket (the filter above), so the
// bridge is no socket at all on the program's side: the launcher listens
// on the port and hands each connection it accepts, as a descriptor over a
// socket pair only it holds, to Quiver, which serves it. The program
// cannot take the launcher's end (non-dumpable: no pidfd_getfd, no
// /proc/1/fd) and has no other way out: raw TCP and UDP still reach only
// its own loopback. The proxy matches the host the request names (the
// CONNECT target, the absolute URI, and a Host header that must agree),
// never an address, resolves it once, refuses non-public addresses for a
// name a wildcard matched and IP literals not listed, and dials the
// address it checked; it does not look inside TLS. Each request, allowed
// or refused, is counted in the profile's tally
// ([Profile.RecordingContacts]): the call's audit record.
//
// bubblewrap would give the same mounts, but as a second program to install
// and start, and no Landlock; Quiver's own launcher costs one exec of the
// host binary.
//
// # The seccomp filter
//
// Last, just before the program starts, the launcher installs a seccomp
// filter (built with go-seccomp-bpf; why that library is in
// launch/seccomp_linux.go). It is a denylist whose matches fail with
// EPERM, as Codex's do, and it refuses what the layers above cannot see:
//
//   - socket(2) of every family but AF_INET, AF_INET6 and AF_NETLINK:
//     AF_UNIX reaches the host's named sockets from any network namespace
//     (an ssh-agent, the Docker socket), AF_VSOCK the hypervisor; the IP
//     families are the network namespace's to fence. socketpair(2) only
//     for AF_UNIX stream and seqpacket pairs: a datagram pair (SOCK_DGRAM,
//     or SOCK_RAW, which makes one) can sendto(2) any named socket, while
//     a stream pair reaches nothing outside and is what Python's
//     multiprocessing and libuv use;
//   - ioctl(2) TIOCSTI and TIOCLINUX, which type into a terminal; compared
//     on the 32 bits the kernel reads, so a request with high bits set is
//     refused too;
//   - from Codex's filter: ptrace, process_vm_readv and process_vm_writev,
//     and io_uring (which makes and connects sockets out of the filter's
//     sight);
//   - beyond it, from Docker's default profile, what no build needs and
//     what reaches shared kernel state: bpf, perf_event_open, userfaultfd,
//     the keyrings (keyctl, add_key, request_key: not namespaced, so the
//     user's keys), kexec_load and kexec_file_load;
//   - any system call through another ABI (i386 through int 0x80, x32)
//     answers ENOSYS: the rules name native numbers only. amd64 and arm64
//     are supported; elsewhere the filter cannot be built and Quiver
//     refuses to start confined.
//
// [Config] UnixSockets (toml unix_sockets) lets a user who needs one reach
// a Unix socket. seccomp cannot see connect(2)'s path, so a list of paths
// is held by Landlock: with it, the filter allows AF_UNIX, and Landlock
// ABI 9's LANDLOCK_ACCESS_FS_RESOLVE_UNIX, granted on the listed paths
// alone, refuses the rest; abstract sockets stay behind the network
// namespace and Landlock's scope. On a kernel below ABI 9 such a start is
// refused (SANDBOX_UNAVAILABLE, naming ABI 9), never widened; the entry
// "*" is the plain alternative, stated as such by `quiver sandbox check`:
// every Unix socket allowed.
//
// # Older kernels
//
// Quiver accepts Landlock ABI 3 (Linux 6.2). What later ABIs add is
// covered on every ABI it accepts: TIOCSTI (ABI 5's device-ioctl right)
// by the seccomp filter and the new session; abstract Unix sockets (ABI 6's
// scope) by the filter, and network off by the network namespace too;
// signals to the host's processes (ABI 6's other scope) by the PID
// namespace. A start that has neither the signal scope nor a PID
// namespace, or that names unix_sockets paths below ABI 9, is refused with
// SANDBOX_UNAVAILABLE naming what is missing. Where the kernel has them,
// the Landlock rights are used as a second wall. QUIVER_SANDBOX_LANDLOCK_ABI
// caps the ABI Quiver uses (a test hook: it lowers, never raises), which
// the tests use to run the escape lines as a 6.2 to 6.11 kernel would.
//
// The launcher is the running executable, or a quiver-sandbox beside it
// that no confined process could have written, judged against each real
// call's profile at its start. A call's availability probe
// ([Profile.Check]) runs exactly that launcher with that profile, once per
// launcher; the machine-wide [Check] runs the running executable only. No
// environment variable names a launcher.
//
// # The launcher
//
// Go cannot run code between fork and exec, so the profile is applied by a
// launcher: Quiver starts its own executable (/proc/self/exe) in new user,
// mount, PID, IPC and (network off) network namespaces, with the profile in
// an environment variable. This package's init function sees that variable,
// sets up the mounts, restricts itself with Landlock, drops every capability
// and starts the program, which therefore runs confined from its first
// instruction. Because the launcher lives in an init function, any program
// that links this package — the quiver binary, a host that embeds Quiver as a
// library, a test binary — is its own launcher: a host needs to do nothing,
// as long as it does not hide its init functions (a host that re-execs
// itself for its own purposes must not set QUIVER_SANDBOX_SPEC).
//
// # The start path
//
// Every process Quiver starts goes through one path, the start path: a
// [Process], made by [Command] (a program with a process group of its own,
// as custom and script tools, the CLI provider's rg and fd, the git of
// git_status_summary, MCP stdio servers, quiver-models and `quiver sandbox`
// start theirs) or by [Group.Command] (the programs of one exec_command
// run, which share a [Group]). Each layer is applied there, once:
//
//   - the environment: the minimal one ([HostEnv]: PATH, HOME, the user,
//     the locale, the terminal) unless the caller sets the whole of it, and
//     [Profile.Env]'s git protections and the call's TMPDIR on top;
//   - the program: the file its path names, or, for one trusted by its
//     content's digest (a pinned script tool), exactly the bytes that were
//     hashed ([Process].Sealed: a sealed memfd, which the launcher execs as
//     /dev/fd/3), so that the file replaced between the check and the
//     start does not run instead;
//   - the sandbox: [Profile.Wrap], which makes the program the launcher's
//     (below), or refuses with an [*UnavailableError] before anything runs;
//   - git: a program named git gets git's profile ([Profile.ForProgram]),
//     whichever tool starts it — exec_command, a custom tool, `quiver
//     sandbox`, git_status_summary — and one that may write .git a
//     [GitGuard] around it, whose refusal Wait returns (see Git's
//     metadata). A program that is not git, a script tool included, finds
//     all of .git read-only, and so does every git it starts in turn;
//   - the process tree: a process group of the call's, or, confined, the
//     launcher as init of a PID namespace of its own (it leads its own
//     process group: an init cannot join one outside its namespace);
//   - the end: the context's end, [Process.Kill], [Group.Kill] and the exit
//     of a Command's program each kill the whole tree — the process groups,
//     each started process through its pidfd, and so, confined, everything
//     in its PID namespace. Unconfined, a program may leave the process
//     group (setsid, a daemon): on Linux every process of an unconfined
//     group carries a random token in its environment, and the kill also
//     kills every process of the user's whose environment holds it. That
//     reaches what ordinary programs leave behind; a hostile program that
//     scrubs its environment escapes it, which is what confinement is for;
//   - the wait: [OutputGrace] bounds the wait for output pipes still held
//     once the program has exited, ETXTBSY is retried, and the leader of a
//     shared group is waited for without being reaped, so that its process
//     group's id cannot be reused while the group may still be killed;
//   - [Process.Stop] ends a program that serves requests on its standard
//     input (an MCP server, quiver-models) as they expect: stdin closed,
//     then SIGTERM, then the kill of the tree.
//
// Bounded capture stays with the callers, which each know what they keep
// (a head and a tail for a model, the end of standard error for a
// message). No other package calls exec.Command, exec.CommandContext,
// os.StartProcess or syscall.ForkExec, or builds an exec.Cmd: the module's
// startpath_test.go fails when one does, and lists the few files allowed
// (the launcher's own fork, the test harness) with the reason for each.
//
// # One call, one confined world
//
// A call's processes inherit nothing from the host but the profile, and
// leave nothing behind:
//
//   - The launcher's environment is fixed: the spec and nothing else. The
//     program's environment travels inside the spec and is handed to the
//     program alone, so an LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH or
//     GLIBC_TUNABLES that a call sets (an env entry, a `VAR=... cmd`
//     prefix) cannot run code in a dynamically linked launcher (a cgo build,
//     `go run`, an embedding host) before it has confined itself, nor can a
//     GODEBUG steer its Go runtime. An environment variable rather than a
//     descriptor carries the spec: it needs nothing closed after the start
//     and shifts none of the caller's ExtraFiles; its cost is the kernel's
//     limit of 128 KiB on one variable, which a launch whose environment is
//     larger is refused with.
//   - The launcher is the init of the call's PID namespace, with a /proc of
//     its own: it starts the program as its child, forwards the host's
//     SIGTERM, SIGINT, SIGHUP (and the other signals a user sends) to it,
//     reaps orphans, and exits with the program's status (128 plus the
//     signal, as a shell reports a program killed by one). When it exits,
//     the kernel kills every process of the namespace: a daemon that
//     forked twice, called setsid and closed its streams dies with its
//     call, and no process of a call can see or signal the host's, whatever
//     Landlock ABI the kernel has. The launcher dies when the process that
//     started it does, by a parent-death signal, so `quiver serve` stopped
//     by SIGTERM or SIGKILL takes every call's processes with it. It is
//     non-dumpable: the program cannot ptrace it or write its memory, which
//     its other, unconfined, threads run from.
//   - An IPC namespace: the host's System V shared memory, message queues
//     and semaphores, and its POSIX message queues, are out of sight.
//   - The program runs in a session of its own, with no controlling
//     terminal, `quiver sandbox -- CMD` included: it cannot push input into
//     the user's terminal with TIOCSTI (the kernel refuses it on a terminal
//     that is not the caller's controlling one) nor open /dev/tty.
//   - Every descriptor from 3 up is closed before the program starts, but
//     those the host passes on purpose (exec.Cmd.ExtraFiles): a file or
//     socket the host holds without close-on-exec does not reach it.
//
// # Limits
//
// [Limits] ([sandbox.limits]) bound a call's tasks, memory and CPU time.
// Where the machine gives Quiver a cgroup (package cgroup), a [Group]
// makes one for its call on its first confined start, and every launcher
// of the call starts in it: under cgroup v2 straight into it
// (CLONE_INTO_CGROUP); under v1 held on a start pipe (launch.Spec.Held)
// until Quiver has written its pid into the cgroup, so that nothing of the
// call runs outside it. The cgroup holds the processes limit (for root
// too) and the memory limit for the call as a whole; when the group
// closes, what is left in it is killed, the kernel's counters are kept
// ([Group.LimitEvents], the evidence for [Limits.Hit]) and the cgroup is
// removed. A cgroup that cannot be made leaves the call to its resource
// limits, which the launcher sets in any case: the processes limit, and
// the CPU time limit, per process. `quiver sandbox check` says which
// holds, and why.
//
// # Failing closed
//
// Where the kernel cannot enforce a profile (no Landlock, an ABI older than
// 3, user namespaces forbidden, no seccomp filters, see also Older kernels), [Profile.Wrap] refuses with an
// [*UnavailableError] that names what is missing and the settings that opt
// out: write_scope = "unrestricted", or [sandbox] disabled = true for a host
// that isolates Quiver itself. Nothing ever runs unconfined silently.
// [Check] reports what this machine supports; `quiver sandbox check` prints
// it.
//
// # What the sandbox does not do
//
// What a call could once leave behind or reach through the host's process
// — a launcher steered by LD_PRELOAD, a daemon outliving its call, the
// user's terminal, inherited descriptors, System V IPC, named Unix
// sockets, .git beyond config and hooks, a symbolic link in place of a
// protected path — is now closed by the layers above, each tested with
// the escape attempts of testdata/escapes.txt (docs/sandbox.md compares
// them with Codex's sandbox). What is left open, on purpose or for want
// of a kernel feature:
//
//   - Reads stay open under every profile by default, as in Codex: a
//     confined process can read any file its user can (~/.ssh included),
//     except the paths a read deny rule names (deny = ["read_file(.env)"], [Profile.MaskReads]),
//     over which the launcher mounts /dev/null (a file) or an empty
//     read-only tmpfs (a directory), so cat, grep -r, interpreters and
//     symbolic links read nothing there, as Claude Code's denyRead does. A
//     hard link to such a file cannot be made inside the sandbox (EXDEV);
//     one made before the call inside the workspace is found by the file's
//     identity when the process starts and masked as well (a hard link
//     outside the workspace, or to a file inside a masked directory, is
//     not looked for). Quiver's own files are masked the same way in every
//     profile: background jobs' logs and exec_command's output files
//     ([PrivateDir]) and a directory output store (the toolkit masks it),
//     which hold every session's output. Each call's TMPDIR lies there
//     too ([Profile.WithTempDir]): a call's programs find their own
//     mounted back at its path and no other call's. The file tools are held to the workspace by package
//     workspace; processes are not, unless the operator narrows their
//     reads with [sandbox] read = "workspace" ([Config] Read): then they
//     read only the workspace, the writable roots, the call's TMPDIR and
//     the system's program directories ([Profile.Readable]). (The CLI
//     provider's rg and fd are held so always: they may read only the
//     workspace and the system's program directories.)
//   - With [sandbox] unix_sockets = ["*"], every Unix socket the user can
//     reach (a Docker socket, a session bus, abstract ones when the network
//     is on) can be connected to: that entry is the plain opt-out for
//     kernels without Landlock ABI 9.
//   - Nested user namespaces stay allowed (Quiver's own tests, bwrap and
//     browsers' sandboxes need them): inside one a process gets
//     capabilities over namespaces of its own only, Landlock still forbids
//     it every mount, and the mounts it inherited stay locked.
//   - A protected path that does not exist when the process starts cannot
//     be mounted over: a process may create quiver.toml or .quiver/ where
//     there were none, or a .git in a workspace that had none (the user's
//     git there would then read it). .git's own entries are covered above.
//   - A read-only git may still execute the loader, so a driver that a
//     nested repository's config names as ld.so plus a file runs that
//     file, read-only and offline as the git itself (see Git's metadata).
//   - A GitGuard's check runs when the git exits: between its write and
//     the check, a git the user runs at that moment could see the gitlink.
//   - [Limits] ([sandbox.limits]) hold for a call as a whole only where
//     the machine gives Quiver a cgroup (package cgroup: a delegated cgroup
//     v2, or cgroup v1 when Quiver runs as root). Without one they are
//     resource limits (setrlimit): memory is bounded per process, and
//     RLIMIT_DATA does not count shared mappings, nor a memfd's or a tmpfs
//     file's pages, so it stops a runaway program, not a hostile one; the
//     processes limit does not hold when Quiver runs as root, whose tasks
//     the kernel never counts; and a limit reached is judged from what the
//     program printed ([Limits.Hit]), which a program can imitate. CPU time
//     is bounded per process (RLIMIT_CPU) either way.
package sandbox
