// Package workspace is the confined file system every built-in tool works in.
//
// A [Workspace] is a directory opened with [os.Root]: every lookup is done by
// the kernel relative to the root's descriptor, so ".." out of the root, an
// absolute path outside it and a symlink that leads out are refused by a
// lookup that cannot be raced — not by string checks that a rename between
// check and use could defeat. The errors are *tool.Error with code
// SANDBOX_VIOLATION.
//
// # What it adds to os.Root
//
//   - paths in, paths out: a tool may name a file relative to the root or by
//     an absolute path inside it; paths shown to the model are relative
//     ([Workspace.Rel]);
//   - reads that cannot hang: [Workspace.Open] refuses FIFOs, sockets and
//     devices after opening without blocking;
//   - atomic writes ([Workspace.WriteFile], [Workspace.WriteFileFrom]): a
//     temporary file in the same directory, fsync, rename; the old mode kept;
//     on any failure the old content is intact and no temporary file is left;
//   - ignore files for walkers ([Ignore], [Workspace.Walk]): .gitignore
//     (nested, with negations), .ignore, .quiverignore and .git/info/exclude.
//     A path asked for by name is read whatever the ignore files say.
//
// # The gitignore matcher
//
// The gitignore matcher (ignore.go) is written here rather than taken from
// go-git's plumbing/format/gitignore, for two reasons measured against
// go-git v5.19.3. It agrees with git where go-git does not: on a tree
// checked against `git ls-files --others --exclude-standard`, go-git reads
// "[!a]" as a class holding '!' and 'a' (it matches with filepath.Match,
// whose negation is '^'), so it ignores the names the rule keeps, and it
// does not re-include logs/keep/y under "logs/**", "!logs/keep/",
// "!logs/keep/**"; this matcher listed exactly git's files. And it is
// faster, matching and walking the Go source tree (docs/performance.md
// has the figures). ignore_test.go pins git's semantics: negation, "**", anchoring
// to the directory of the file, directory-only rules.
//
// # The unrestricted write scope
//
// The unrestricted write scope is the one exception to confinement: with
// [Options.AllowOutside] absolute paths outside the root are served from a
// root opened at "/". Under workspace-write, reads are confined as strictly
// as writes (the first design bounded only writes there: docs/design.md section 5): a secret beside the
// project is not the model's to read, and a rule can always widen the root.
//
// # Backends
//
// A workspace may serve a tree that is not a directory on disk: a commit
// of a git repository, a repository on GitHub. [New] wraps a [Backend] —
// io/fs's ReadDirFS and ReadLinkFS and a name — in the same Workspace, so
// the read tools (read_file, list_dirs, list_files, tree and the searches)
// run on it unchanged, and the confinement above (paths, links, read
// denies, ignore files) is the workspace's, written once for every
// backend. Such a workspace is read-only. Package workspacetest checks a
// backend against the same files on disk, tool by tool.
//
// Tools reach the workspace as the dependency [Key].
package workspace
