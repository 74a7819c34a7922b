package shell

import (
	"strings"
	"sync"
)

// gitReadOnly accepts `git [safe global options] SUBCOMMAND [args]` when the
// subcommand and every option of it are on the allowlist. Global options
// that make git read another configuration, another repository or run a
// pager (-c, -C, --git-dir, --work-tree, --exec-path, --config-env,
// --namespace, --bare, -p/--paginate...) are not: git spells them in full
// (no abbreviations), so anything not listed is one of them or unknown.
func gitReadOnly(args []string) bool {
	for i, a := range args {
		switch {
		case contains(gitSafeGlobals, a):
		case a == "--version" || a == "-v":
			return i == len(args)-1
		case strings.HasPrefix(a, "-"):
			return false
		default:
			check, ok := gitSubcommands()[a]
			return ok && check(args[i+1:])
		}
	}
	return false
}

var gitSafeGlobals = []string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
	"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects"}

// gitLogOpts are the revision and diff options of log, show, diff,
// rev-list and the like: git's revision parser and its diff options take
// no abbreviations. Not among them: --output (writes a file), --ext-diff
// and --textconv (run configured programs), --show-signature (runs gpg).
// Values are taken attached only (--author=x); a value given as the next
// argument is judged as an operand, which revisions and paths are. Built
// on first use, not at start-up, as are the other tables of the classifier.
var gitLogOpts = sync.OnceValue(func() *optSpec {
	return opts(exactStyle, "0 1 2 3 4 5 6 7 8 9 p u patch s no-patch stat=? numstat shortstat summary name-only name-status raw patch-with-stat "+
		"patch-with-raw compact-summary full-index binary no-color color=? word-diff=? word-diff-regex=? "+
		"color-words=? color-moved=? no-color-moved color-moved-ws=? no-color-moved-ws ws-error-highlight=? "+
		"b|ignore-space-change w|ignore-all-space ignore-blank-lines ignore-cr-at-eol ignore-space-at-eol "+
		"minimal patience histogram anchored=? diff-algorithm=? indent-heuristic no-indent-heuristic R "+
		"relative=? no-relative a|text exit-code quiet check no-ext-diff no-textconv no-renames "+
		"M|find-renames=? C|find-copies=? find-copies-harder B|break-rewrites=? D|irreversible-delete l=? "+
		"diff-filter=? S=? G=? pickaxe-all pickaxe-regex O=? skip-to=? rotate-to=? abbrev=? no-abbrev "+
		"src-prefix=? dst-prefix=? no-prefix default-prefix line-prefix=? U|unified=? inter-hunk-context=? "+
		"W|function-context z submodule=? ignore-submodules=? X|dirstat=? cumulative dirstat-by-file=? "+
		"stat-width=? stat-name-width=? stat-count=? stat-graph-width=? full-diff cached staged merge-base "+
		"no-index ita-invisible-in-index "+
		"oneline format=? pretty=? abbrev-commit no-abbrev-commit encoding=? expand-tabs=? no-expand-tabs "+
		"notes=? no-notes show-notes=? standard-notes no-standard-notes show-linear-break=? date=? "+
		"relative-date graph no-graph decorate=? no-decorate decorate-refs=? decorate-refs-exclude=? "+
		"clear-decorations source use-mailmap mailmap no-mailmap no-use-mailmap log-size L=? n|max-count=? "+
		"skip=? since=? after=? until=? before=? since-as-filter=? author=? committer=? grep-reflog=? grep=? "+
		"all-match invert-grep i|regexp-ignore-case basic-regexp E|extended-regexp F|fixed-strings "+
		"P|perl-regexp remove-empty merges no-merges min-parents=? max-parents=? no-min-parents "+
		"no-max-parents first-parent exclude-first-parent-only not all branches=? tags=? remotes=? glob=? "+
		"exclude=? reflog alternate-refs single-worktree ignore-missing cherry-mark cherry-pick left-only "+
		"right-only cherry g|walk-reflogs merge boundary simplify-by-decoration full-history dense sparse "+
		"simplify-merges ancestry-path=? show-pulls topo-order date-order author-date-order reverse "+
		"no-walk=? do-walk left-right parents children c cc m t combined-all-paths dd remerge-diff=? "+
		"diff-merges=? no-diff-merges follow count objects objects-edge no-object-names object-names "+
		"timestamp header", "")
})

// gitOpts is a subcommand read by git's parse-options, which resolves
// abbreviations: names are all its long options (from `git SUBCOMMAND
// --git-completion-helper-all`), safe the read-only ones.
func gitOpts(safe, names string) *optSpec { return opts(gitStyle, safe, names) }

// gitLog checks the arguments of log, show, diff and the like.
func gitLog(args []string) bool { return program{opts: gitLogOpts()}.readOnly(args) }

// gitSubcommands returns the checks of the arguments of the git
// subcommands that may be read-only. A subcommand not here is not, whatever
// its arguments. The table is built on first use, as programs is, to keep
// its option tables out of the package's start-up.
var gitSubcommands = sync.OnceValue(func() map[string]func([]string) bool {
	// gitBlame is blame and annotate: its own options resolve
	// abbreviations; --contents (reads any file as the work tree's) and
	// --textconv are not among the read-only ones.
	gitBlame := program{opts: gitOpts("b root show-stats progress no-progress score-debug f|show-name "+
		"n|show-number p|porcelain line-porcelain c t l s e|show-email w M=? C=? L= incremental minimal "+
		"abbrev=? no-abbrev date= color-lines color-by-age ignore-rev= ignore-revs-file= no-textconv encoding= "+
		"since= reverse first-parent",
		"--contents --textconv --no-incremental --no-root --no-show-stats --no-score-debug --no-show-name "+
			"--no-show-number --no-porcelain --no-line-porcelain --no-show-email --no-ignore-rev "+
			"--no-ignore-revs-file --no-color-lines --no-color-by-age --no-minimal --no-contents")}.readOnly

	return map[string]func([]string) bool{
		"log": gitLog, "show": gitLog, "diff": gitLog, "whatchanged": gitLog, "rev-list": gitLog,
		"shortlog": program{opts: withSafe(gitLogOpts(), "n|numbered s|summary e|email committer group= w=?")}.readOnly,
		"status": program{opts: gitOpts("v|verbose s|short b|branch show-stash ahead-behind no-ahead-behind "+
			"porcelain=? long z|null u|untracked-files=? ignored=? ignore-submodules=? column=? no-column renames "+
			"no-renames M|find-renames=? no-verbose no-short no-branch no-show-stash no-porcelain no-long no-null "+
			"no-untracked-files no-ignored no-ignore-submodules", "")}.readOnly,
		"grep": program{opts: gitOpts("a|text c|count e= f= h H i|ignore-case I l|files-with-matches name-only "+
			"L|files-without-match n|line-number o|only-matching p|show-function q|quiet r|recursive "+
			"v|invert-match w|word-regexp W|function-context z|null E|extended-regexp F|fixed-strings "+
			"G|basic-regexp P|perl-regexp A|after-context= B|before-context= C|context= m|max-count= "+
			"0 1 2 3 4 5 6 7 8 9 cached no-index untracked exclude-standard recurse-submodules max-depth= "+
			"column full-name color=? break heading threads= and or not all-match index no-textconv "+
			"no-cached no-untracked no-exclude-standard no-recurse-submodules no-invert-match no-ignore-case "+
			"no-word-regexp no-text no-recursive no-extended-regexp no-basic-regexp no-fixed-strings "+
			"no-perl-regexp no-line-number no-column no-full-name no-files-with-matches no-name-only "+
			"no-files-without-match no-null no-only-matching no-count no-color no-break no-heading "+
			"no-context no-before-context no-after-context no-threads no-show-function no-function-context "+
			"no-or no-quiet no-all-match no-max-count",
			// -O/--open-files-in-pager runs a program; --textconv runs
			// configured filters; --ext-grep is an old name git ignores.
			"open-files-in-pager ext-grep textconv no-open-files-in-pager no-ext-grep")}.readOnly,
		"blame":    gitBlame,
		"annotate": gitBlame,
		"rev-parse": program{opts: opts(exactStyle, "show-toplevel show-prefix show-cdup git-dir absolute-git-dir "+
			"git-common-dir is-inside-work-tree is-inside-git-dir is-bare-repository is-shallow-repository "+
			"abbrev-ref=? short=? verify q|quiet symbolic symbolic-full-name all branches=? tags=? remotes=? "+
			"glob=? exclude=? show-object-format=? git-path sq sq-quote local-env-vars path-format=? "+
			"show-superproject-working-tree shared-index-path since=? after=? until=? before=? not revs-only "+
			"no-revs flags no-flags disambiguate=? default", "")}.readOnly,
		"ls-files": program{opts: gitOpts("c|cached d|deleted m|modified o|others i|ignored s|stage k|killed "+
			"directory no-empty-directory empty-directory eol u|unmerged resolve-undo x|exclude= X|exclude-from= "+
			"exclude-per-directory= exclude-standard full-name recurse-submodules error-unmatch with-tree= "+
			"abbrev=? debug deduplicate sparse format= t v f z",
			"--no-cached --no-deleted --no-modified --no-others --no-ignored --no-stage --no-killed --no-directory "+
				"--no-eol --no-unmerged --no-resolve-undo --no-exclude-per-directory --no-recurse-submodules "+
				"--no-error-unmatch --no-with-tree --no-abbrev --no-debug --no-deduplicate --no-sparse")}.readOnly,
		"ls-tree": program{opts: gitOpts("d r t l|long z name-only name-status object-only full-name full-tree "+
			"format= abbrev=? no-full-name no-full-tree no-abbrev", "")}.readOnly,
		"cat-file": program{opts: gitOpts("t s e p batch=? batch-check=? batch-command=? batch-all-objects buffer "+
			"follow-symlinks unordered Z allow-unknown-type mailmap use-mailmap no-mailmap no-use-mailmap "+
			"no-allow-unknown-type no-buffer no-follow-symlinks no-unordered",
			// --textconv and --filters run configured programs.
			"textconv filters path no-path")}.readOnly,
		"show-ref": program{opts: gitOpts("tags heads verify head d|dereference s|hash=? abbrev=? q|quiet "+
			"exclude-existing=?", "--no-tags --no-heads --no-verify --no-head --no-dereference --no-hash "+
			"--no-abbrev --no-quiet")}.readOnly,
		"describe": program{opts: gitOpts("contains debug all tags long first-parent abbrev=? exact-match "+
			"candidates= match= exclude= always no-contains no-debug no-all no-tags no-long no-first-parent "+
			"no-abbrev no-exact-match no-candidates no-match no-exclude no-always",
			// --dirty and --broken refresh the index.
			"dirty broken no-dirty no-broken")}.readOnly,
		"for-each-ref": program{opts: gitOpts("shell perl python tcl count= format= color=? sort= points-at= "+
			"merged=? no-merged=? contains=? no-contains=? ignore-case omit-empty", "--no-shell --no-perl "+
			"--no-python --no-tcl --no-count --no-format --no-color --no-sort --no-points-at --no-ignore-case")}.readOnly,
		"count-objects": program{opts: gitOpts("v|verbose H|human-readable", "--no-verbose --no-human-readable")}.readOnly,
		"check-ignore": program{opts: gitOpts("q|quiet v|verbose stdin z n|non-matching no-index index",
			"--no-quiet --no-verbose --no-stdin --no-non-matching")}.readOnly,
		"check-attr": program{opts: gitOpts("a|all cached stdin z source=", "--no-all --no-cached --no-stdin")}.readOnly,
		"name-rev": program{opts: gitOpts("name-only tags refs= exclude= all stdin annotate-stdin undefined "+
			"no-undefined always peel-tag", "--no-name-only --no-tags --no-refs --no-exclude --no-all "+
			"--no-stdin --no-annotate-stdin --no-always --no-peel-tag")}.readOnly,
		"merge-base": program{opts: gitOpts("a|all octopus independent is-ancestor fork-point", "--no-all")}.readOnly,
		"version":    program{opts: gitOpts("build-options", "--no-build-options")}.readOnly,
		"branch":     gitBranchReadOnly,
		"tag":        gitTagReadOnly,
		"config":     gitConfigReadOnly,
		"remote":     gitRemoteReadOnly,
		"stash":      gitStashReadOnly,
		"reflog":     gitReflogReadOnly,
		"worktree": func(args []string) bool {
			return len(args) > 0 && args[0] == "list" &&
				program{opts: gitOpts("porcelain v|verbose z expire=", "--no-porcelain --no-verbose --no-expire")}.readOnly(args[1:])
		},
	}
})

// withSafe returns a copy of s with more read-only options.
func withSafe(s *optSpec, safe string) *optSpec {
	more := opts(s.style, safe, "")
	c := &optSpec{style: s.style, safe: map[string]safeOpt{}, names: append(append([]string(nil), s.names...), more.names...)}
	for k, v := range s.safe {
		c.safe[k] = v
	}
	for k, v := range more.safe {
		c.safe[k] = v
	}
	return c
}

// gitBranchOpts and gitTagOpts are the listing options of branch and tag;
// both treat an operand as a name to create unless --list is given. Built
// on first use (start-up cost).
var (
	gitBranchOpts = sync.OnceValue(func() *optSpec {
		return gitOpts("a|all r|remotes l|list v|verbose q|quiet show-current color=? no-color "+
			"column=? no-column i|ignore-case sort= format= contains no-contains merged no-merged points-at= "+
			"abbrev=? no-abbrev omit-empty no-verbose no-quiet",
			"track set-upstream set-upstream-to unset-upstream with without delete move copy create-reflog "+
				"edit-description force recurse-submodules no-track no-set-upstream no-set-upstream-to "+
				"no-unset-upstream no-remotes no-all no-delete no-move no-copy no-list no-show-current "+
				"no-create-reflog no-edit-description no-force no-sort no-points-at no-ignore-case "+
				"no-recurse-submodules no-format")
	})
	gitTagOpts = sync.OnceValue(func() *optSpec {
		return gitOpts("l|list n=? sort= format= contains no-contains merged no-merged points-at= "+
			"column=? no-column color=? no-color i|ignore-case omit-empty",
			"delete verify annotate message file edit sign cleanup local-user force create-reflog with without "+
				"no-annotate no-file no-edit no-sign no-cleanup no-local-user no-force no-create-reflog no-sort "+
				"no-points-at no-format no-ignore-case")
	})
)

func gitBranchReadOnly(args []string) bool { return gitListing(gitBranchOpts(), args) }

func gitTagReadOnly(args []string) bool { return gitListing(gitTagOpts(), args) }

func gitListing(s *optSpec, args []string) bool {
	p, ok := s.parse(args)
	return ok && (len(p.operands) == 0 || p.has("--list"))
}

// gitConfigOpts are git config's options; built on first use (start-up
// cost).
var gitConfigOpts = sync.OnceValue(func() *optSpec {
	return gitOpts("global system local worktree f|file= blob= get get-all get-regexp "+
		"get-urlmatch l|list get-color get-colorbool t|type= bool int bool-or-int bool-or-str path expiry-date "+
		"z|null name-only includes no-includes show-origin show-scope default= fixed-value",
		"replace-all add unset unset-all rename-section remove-section edit no-global no-system no-local "+
			"no-worktree no-file no-blob no-get no-get-all no-get-regexp no-get-urlmatch no-replace-all no-add "+
			"no-unset no-unset-all no-rename-section no-remove-section no-list no-fixed-value no-edit "+
			"no-get-color no-get-colorbool no-type no-null no-name-only no-show-origin no-show-scope "+
			"no-default").stopping()
})

// gitConfigActions are git config's reading actions, with how many
// operands each takes. Built on first use (start-up cost).
var gitConfigActions = sync.OnceValue(func() map[string][2]int {
	return map[string][2]int{"--get": {1, 2}, "--get-all": {1, 2}, "--get-regexp": {1, 2},
		"--get-urlmatch": {2, 2}, "--list": {0, 0}, "--get-color": {1, 2}, "--get-colorbool": {1, 2}}
})

// gitConfigReadOnly accepts git config with one reading action (or none and
// a single name, which reads it), and `git config get NAME` / `git config
// list` of newer gits. Options end at the first operand, as in git: in `git
// config core.pager --get`, "--get" is the value written.
func gitConfigReadOnly(args []string) bool {
	p, ok := gitConfigOpts().parse(args)
	if !ok {
		return false
	}
	action, n := "", 0
	for _, o := range p.opts {
		if _, ok := gitConfigActions()[o.name]; ok {
			action, n = o.name, n+1
		}
	}
	ops := len(p.operands)
	switch {
	case n > 1:
		return false
	case n == 1:
		r := gitConfigActions()[action]
		return ops >= r[0] && ops <= r[1]
	case ops == 1:
		return true
	case ops == 2 && p.operands[0] == "get":
		return true
	}
	return ops == 1 && p.operands[0] == "list"
}

// gitRemoteReadOnly accepts `git remote [-v]` and `git remote get-url`.
func gitRemoteReadOnly(args []string) bool {
	p, ok := gitOpts("v|verbose", "--no-verbose").stopping().parse(args)
	switch {
	case !ok:
		return false
	case len(p.operands) == 0:
		return true
	case p.operands[0] != "get-url":
		return false
	}
	q, ok := gitOpts("push all", "--no-push --no-all").parse(p.operands[1:])
	return ok && len(q.operands) == 1
}

// gitStashReadOnly accepts `git stash list` and `git stash show`, with
// log and diff options.
func gitStashReadOnly(args []string) bool {
	if len(args) == 0 {
		return false // git stash is git stash push
	}
	switch args[0] {
	case "list":
		return gitLog(args[1:])
	case "show":
		return program{opts: withSafe(gitLogOpts(), "u|include-untracked only-untracked no-include-untracked")}.readOnly(args[1:])
	}
	return false
}

// gitReflogReadOnly accepts `git reflog [show] [log options] [ref]` and
// `git reflog exists REF`; expire, delete and anything else are not.
func gitReflogReadOnly(args []string) bool {
	switch {
	case len(args) == 0:
		return true
	case args[0] == "show":
		return gitLog(args[1:])
	case args[0] == "exists":
		return len(args) == 2
	case strings.HasPrefix(args[0], "-"):
		return gitLog(args)
	}
	return false
}

// goReadOnly accepts go version, go env (reading), go list (without flags
// that build, run a tool or change go.mod), go doc and go help. Go's flag
// package spells flags in full, with one dash or two.
func goReadOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	rest := args[1:]
	switch args[0] {
	case "version":
		return goFlags(rest, "m v json", nil)
	case "env":
		return goFlags(rest, "json changed", nil)
	case "list":
		return goFlags(rest, "json=? f= m u versions retracted e deps test find tags= x mod=",
			map[string][]string{"mod": {"readonly", "vendor"}})
	case "doc":
		return goFlags(rest, "all c cmd short src u", nil)
	case "help":
		return goFlags(rest, "", nil)
	}
	return false
}

// goFlags checks go's flags (-name, --name, -name=value, -name value) against
// safe, in opts' notation; values restricts some flags' values.
func goFlags(args []string, safe string, values map[string][]string) bool {
	kinds := map[string]optKind{}
	for _, e := range strings.Fields(safe) {
		switch {
		case strings.HasSuffix(e, "=?"):
			kinds[strings.TrimSuffix(e, "=?")] = optionalOpt
		case strings.HasSuffix(e, "="):
			kinds[strings.TrimSuffix(e, "=")] = requiredOpt
		default:
			kinds[e] = flagOpt
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return true
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		kind, ok := kinds[name]
		if !ok || (kind == flagOpt && hasValue && value != "true" && value != "false") {
			return false
		}
		if kind == requiredOpt && !hasValue {
			if i+1 >= len(args) {
				return false
			}
			i++
			value = args[i]
		}
		if allowed, ok := values[name]; ok && !contains(allowed, value) {
			return false
		}
	}
	return true
}
