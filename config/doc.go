// Package config loads Quiver's configuration: where the workspace is,
// what the policy allows, and the settings of each tool source and tool.
// Start at [LoadLayers]; [Parse] decodes one file.
//
// # Layers and trust
//
// A configuration is made of layers, merged in this order:
//
//	layer     file                                       trusted           may set
//	--config  the file named (the whole configuration:   yes: the          everything
//	          no other layer is read)                    operator chose it
//	user      UserDir()/config.toml                      yes               everything
//	          ($XDG_CONFIG_HOME/quiver, else
//	          os.UserConfigDir()/quiver)
//	project   quiver.toml (else quorum.toml) in --root   when `quiver      everything, when trusted;
//	          or the current directory, and the files    trust` recorded   otherwise only what tightens:
//	          of .quiver/tools                           it as it is now   policy.deny, policy.protected,
//	                                                                       audit.redact; policy.ask and
//	                                                                       [policy.tools] NAME = "ask"
//	                                                                       unless the operator denies
//	                                                                       (the tool, or by default);
//	                                                                       [policy.tools] NAME = "deny";
//	                                                                       policy.default at least as
//	                                                                       strict, write_scope at least
//	                                                                       as narrow; serve.ask_fallback
//	                                                                       = "deny"; sandbox.read =
//	                                                                       "workspace"
//	environment QUIVER_* variables, one per key (EnvKeys),  yes: the          everything
//	          also over --config                         operator set them
//
// The command's flags come after every layer. The environment comes after
// the files because it is set for one process (a container's Secret, a
// Deployment's env), as a flag is for one command; it is trusted as the
// user's file is, and an untrusted project cannot set it.
//
// A later layer adds its lists (rules, protected paths, servers, custom
// tools) to the earlier ones, replaces the values it sets, and merges
// tables key by key; [tools] providers, an order, is replaced whole.
// Relative paths keep the meaning they have in their own file.
//
// A value written as its default is not set: a later layer cannot unset
// what an earlier one set. So sandbox.read = "workspace", once written,
// holds against a later read = "all" (the default) — a project's, trusted
// or not, and the environment's too: a project's file never widens the
// reads the operator narrowed. To read everything again, the key is
// removed from the layer that wrote it.
//
// Why: the project's files are content of the workspace. A cloned
// repository, or any command the agent was allowed to run, can write
// them (a protected path that does not exist yet cannot be mounted over,
// so an agent can create quiver.toml). Loaded whole, they would choose the
// policy that governs the agent, start MCP servers and run scripts. So a
// project is loaded whole only when the operator trusted it, as direnv's
// `allow` does: [Trust] keeps, in UserDir()/trust.json (written
// atomically, mode 0600), the project's real directory and the sha256 of
// each project file ([Project]). One byte changed, a file added or
// removed, or the directory moved, and the project is untrusted again.
// Untrusted, it is neither ignored (its deny rules are worth having) nor
// believed: an allowlist keeps the keys that can only tighten, and every
// other key — a key added to Config later included — is dropped and
// reported with its position ([Layer].Dropped). Custom tools, scripts and
// MCP servers are code, and never among the kept keys.
//
// Attacks this answers: a planted, an edited or a symlinked quiver.toml,
// quorum.toml or .quiver/tools/x (project files are read through an
// os.Root of the project: a link leading out of it is not read, and cannot
// be trusted); the bytes parsed are the bytes hashed, never read twice; a
// trust record is for one directory, not its subdirectories nor where it
// was moved; the user directory, which holds the trust, may not be inside
// the workspace (LoadLayers refuses), and only the operator's environment
// names it, never a file.
//
// # Strict decoding
//
// Decoding is strict: an unknown key or a bad value is an error that names
// the file, the line and the column, because a misspelt policy key
// silently ignored is a policy that does not do what its author thinks.
// For the same reason a rule naming no tool is an error ([CheckToolRefs]),
// checked against the catalogue by the command that builds the toolkit.
// The user's file is the exception: it governs every workspace, so a name
// it writes that is near no tool of this one is taken for another
// project's tool and listed ([ElsewhereToolRefs]) rather than refused; a
// name near a known tool is a typo there too.
//
// # Departure from the first design
//
// Departure from the first design (docs/design.md section 4): it looked
// for ./quiver.toml, then the user's file, one file only. Now the user's
// file and the project's are merged, the project's only as far as its trust
// allows, and with --root only the workspace is looked in (not also the
// current directory). Every key is in docs/config.md.
package config
