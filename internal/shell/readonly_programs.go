package shell

import (
	"strings"
	"sync"
)

// A program is what the classifier knows of one program: the options that
// keep it read-only and, where they matter, which operands it may be given.
type program struct {
	opts *optSpec
	// operands, when set, checks the parsed arguments as a whole: uniq's
	// second operand is a file it writes, a date operand sets the clock.
	operands func(parsedArgs) bool
	// pure is set when no option of the program writes or runs anything,
	// so that a word not known before running ($f, *.go) cannot turn into
	// one that does. Other programs need every word literal.
	pure bool
}

func (p program) readOnly(args []string) bool {
	parsed, ok := p.opts.parse(args)
	return ok && (p.operands == nil || p.operands(parsed))
}

// getopt turns a getopt optstring ("ab:c::") into opts' notation.
func getopt(optstring string) string {
	var b strings.Builder
	for i := 0; i < len(optstring); i++ {
		b.WriteByte(' ')
		b.WriteByte(optstring[i])
		switch {
		case strings.HasPrefix(optstring[i+1:], "::"):
			b.WriteString("=?")
			i += 2
		case strings.HasPrefix(optstring[i+1:], ":"):
			b.WriteString("=")
			i++
		}
	}
	return b.String()
}

const digits = "0123456789" // -NUM: a count (head -5, grep -3)

// gnu is a program of GNU coreutils' kind, every option of which only reads.
func gnu(short, long string) program {
	return program{opts: opts(getoptLong, getopt(short)+" "+long+" help version", ""), pure: true}
}

// programs returns the programs that may be read-only, by name. The table
// is built on first use, not when the package is initialised: its option
// tables are most of what initialising the package would cost, and a
// process that never classifies a command (quiver call read_file) should
// not pay for them at start-up.
var programs = sync.OnceValue(func() map[string]program {
	sums := gnu("bctwz", "binary check ignore-missing quiet status strict tag text warn zero")

	grepProgram := gnu("A:B:C:D:EFGHILPRTUVZabcd:e:f:hilm:noqrsvwxyz"+digits,
		"after-context= basic-regexp before-context= binary binary-files= byte-offset color=? colour=? context= count "+
			"dereference-recursive devices= directories= exclude= exclude-dir= exclude-from= extended-regexp file= "+
			"files-with-matches files-without-match fixed-strings group-separator= ignore-case include= initial-tab "+
			"invert-match label= line-buffered line-number line-regexp max-count= no-filename no-group-separator "+
			"no-ignore-case no-messages null null-data only-matching perl-regexp quiet recursive regexp= silent text "+
			"with-filename word-regexp")

	// fd's -x/-X run commands and -l runs ls.
	fdProgram := program{opts: opts(exactStyle, "H|hidden I|no-ignore no-ignore-vcs no-ignore-parent "+
		"u|unrestricted s|case-sensitive i|ignore-case g|glob regex F|fixed-strings and= a|absolute-path "+
		"L|follow p|full-path 0|print0 d|max-depth= min-depth= exact-depth= E|exclude= prune t|type= "+
		"e|extension= S|size= changed-within= change-newer-than= newer= changed-after= changed-before= "+
		"change-older-than= older= o|owner= batch-size= ignore-file= c|color= j|threads= max-results= 1 "+
		"q|quiet show-errors base-directory= path-separator= search-path= strip-cwd-prefix one-file-system "+
		"h|help V|version", "")}

	return map[string]program{
		"ls": gnu("1ABCDFGHI:LNQRST:UXZabcdfghiklmnopqrstuvw:x",
			"all almost-all author block-size= classify=? color=? context dereference dereference-command-line "+
				"dereference-command-line-symlink-to-dir directory dired escape file-type format= full-time "+
				"group-directories-first hide= hide-control-chars human-readable hyperlink=? ignore= ignore-backups "+
				"indicator-style= inode kibibytes literal no-group numeric-uid-gid quote-name quoting-style= recursive "+
				"reverse show-control-chars si size sort= tabsize= time= time-style= width= zero"),
		"cat":  gnu("AETbenstuv", "number number-nonblank show-all show-ends show-nonprinting show-tabs squeeze-blank"),
		"head": gnu("c:n:qvz"+digits, "bytes= lines= quiet silent verbose zero-terminated"),
		"tail": gnu("Fc:fn:qs:vz"+digits, "bytes= follow=? lines= max-unchanged-stats= pid= quiet retry silent "+
			"sleep-interval= verbose zero-terminated"),
		"wc":       gnu("Lclmw", "bytes chars files0-from= lines max-line-length words"),
		"grep":     grepProgram,
		"egrep":    grepProgram,
		"fgrep":    grepProgram,
		"cut":      gnu("b:c:d:f:nsz", "bytes= characters= complement delimiter= fields= only-delimited output-delimiter= zero-terminated"),
		"tr":       gnu("Ccdst", "complement delete squeeze-repeats truncate-set1"),
		"basename": gnu("as:z", "multiple suffix= zero"),
		"dirname":  gnu("z", "zero"),
		"realpath": gnu("LPemqsz", "canonicalize-existing canonicalize-missing logical no-symlinks physical quiet "+
			"relative-base= relative-to= strip zero"),
		"readlink": gnu("efmnqsvz", "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero"),
		"stat":     gnu("Lc:ft", "cached= dereference file-system format= printf= terse"),
		"du": gnu("0B:DHLPSX:abcd:hklmst:x", "all apparent-size block-size= bytes count-links dereference dereference-args "+
			"exclude= exclude-from= files0-from= human-readable inodes max-depth= no-dereference null one-file-system "+
			"separate-dirs si summarize threshold= time=? time-style= total"),
		"df": gnu("B:HPTahiklt:vx:", "all block-size= exclude-type= human-readable inodes local no-sync output=? "+
			"portability print-type si sync total type="),
		"cmp":  gnu("bi:ln:sv", "bytes= ignore-initial= print-bytes quiet silent verbose"),
		"comm": gnu("123z", "check-order nocheck-order output-delimiter= total zero-terminated"),
		"nl": gnu("b:d:f:h:i:l:n:ps:v:w:", "body-numbering= footer-numbering= header-numbering= join-blank-lines= "+
			"line-increment= no-renumber number-format= number-separator= number-width= section-delimiter= starting-line-number="),
		"tac":       gnu("brs:", "before regex separator="),
		"od":        gnu("A:N:S:abcdfij:lost:vw::x", "address-radix= endian= format= output-duplicates read-bytes= skip-bytes= strings=? traditional width=?"),
		"md5sum":    sums,
		"sha1sum":   sums,
		"sha224sum": sums,
		"sha256sum": sums,
		"sha384sum": sums,
		"sha512sum": sums,
		"b2sum":     gnu("bcl:twz", "binary check ignore-missing length= quiet status strict tag text warn zero"),
		"cksum":     gnu("a:cl:wz", "algorithm= base64 check debug ignore-missing length= quiet raw status strict tag untagged warn zero"),
		"fold":      gnu("bsw:", "bytes spaces width="),
		"fmt":       gnu("cg:p:stuw:", "crown-margin goal= prefix= split-only tagged-paragraph uniform-spacing width="),
		"paste":     gnu("d:sz", "delimiters= serial zero-terminated"),
		"expand":    gnu("it:", "initial tabs="),
		"unexpand":  gnu("at:", "all first-only tabs="),
		"join":      gnu("1:2:a:e:ij:o:t:v:z", "check-order header ignore-case nocheck-order zero-terminated"),
		"seq":       gnu("f:s:w"+digits, "equal-width format= separator="),
		"whoami":    gnu("", ""),
		"groups":    gnu("", ""),
		"arch":      gnu("", ""),
		"sleep":     gnu("", ""),
		"nproc":     gnu("", "all ignore="),
		"tty":       gnu("s", "quiet silent"),
		"id":        gnu("GZagnruz", "context group groups name real user zero"),
		"uname": gnu("aimnoprsv", "all hardware-platform kernel-name kernel-release kernel-version machine nodename "+
			"operating-system processor"),
		"printenv": gnu("0", "null"),
		"true":     gnu("", ""),
		"false":    gnu("", ""),
		"which":    {opts: opts(exactStyle, "a s", ""), pure: true},
		"jq": {opts: opts(exactStyle, "c|compact-output n|null-input e|exit-status s|slurp r|raw-output j|join-output "+
			"a|ascii-output S|sort-keys C|color-output M|monochrome-output R|raw-input tab indent= seq stream "+
			"stream-errors arg args jsonargs argjson slurpfile rawfile f|from-file L h|help V|version raw-output0", ""), pure: true},

		"diff": {opts: opts(getoptLong, getopt("BC:D:EF:I:NS:TU:W:X:Zabcdeinpqrstuvwx:y")+
			" brief color=? context=? ed exclude= exclude-from= expand-tabs from-file= help horizon-lines= ifdef= "+
			"ignore-all-space ignore-blank-lines ignore-case ignore-file-name-case ignore-matching-lines= "+
			"ignore-space-change ignore-tab-expansion ignore-trailing-space initial-tab label= left-column "+
			"line-format= minimal new-file no-dereference no-ignore-file-name-case normal palette= rcs recursive "+
			"report-identical-files show-c-function show-function-line= side-by-side speed-large-files "+
			"starting-file= strip-trailing-cr suppress-blank-empty suppress-common-lines tabsize= text to-file= "+
			"unidirectional-new-file unified=? version width= old-group-format= new-group-format= "+
			"unchanged-group-format= changed-group-format= old-line-format= new-line-format= unchanged-line-format=",
			"paginate")}, // -l, --paginate runs pr
		"sort": {opts: opts(getoptLong, "b d f g h i M m n R r s u V z c C S= t= k="+
			" batch-size= buffer-size= check=? debug dictionary-order field-separator= files0-from= "+
			"general-numeric-sort human-numeric-sort ignore-case ignore-leading-blanks ignore-nonprinting key= "+
			"merge month-sort numeric-sort parallel= random-sort random-source= reverse sort= stable unique "+
			"version-sort zero-terminated help version",
			"output compress-program temporary-directory")},
		"uniq": {opts: opts(getoptLong, "D|all-repeated=? c|count d|repeated f|skip-fields= i|ignore-case "+
			"s|skip-chars= u|unique w|check-chars= z|zero-terminated group=? help version", ""),
			operands: func(p parsedArgs) bool { return len(p.operands) <= 1 && !p.optAfterOperand }}, // a second operand is written
		"date": {opts: opts(getoptLong, "d|date= f|file= I|iso-8601=? r|reference= R|rfc-email rfc-3339= "+
			"u|utc|universal debug resolution help version", "set rfc-2822"),
			operands: dateOperands},
		"hostname": {opts: opts(getoptLong, "a|alias A|all-fqdns d|domain f|fqdn|long i|ip-address "+
			"I|all-ip-addresses s|short y|yp|nis help V|version", "boot file"),
			operands: func(p parsedArgs) bool { return len(p.operands) == 0 }}, // an operand sets the name
		"file": {opts: opts(getoptLong, "0|print0 b|brief c|checking-printout d|debug e|exclude= exclude-quiet= "+
			"f|files-from= F|separator= h|no-dereference i|mime k|keep-going l|list L|dereference m|magic-file= "+
			"n|no-buffer N|no-pad P|parameter= r|raw s|special-files apple extension mime-type mime-encoding "+
			"help v|version",
			// -C writes a compiled magic file, -p sets files' times back,
			// -z and -Z run decompressors, -S lifts the sandbox.
			"compile preserve-date uncompress uncompress-noreport no-sandbox")},
		"rg": {opts: opts(exactStyle, "A|after-context= auto-hybrid-regex B|before-context= binary block-buffered "+
			"b|byte-offset s|case-sensitive color= colors= column C|context= context-separator= no-context-separator "+
			"c|count count-matches crlf no-crlf debug trace dfa-size-limit= max-filesize= E|encoding= engine= "+
			"field-context-separator= field-match-separator= f|file= files l|files-with-matches files-without-match "+
			"F|fixed-strings L|follow no-follow g|glob= glob-case-insensitive h|help heading no-heading hidden "+
			"no-hidden iglob= i|ignore-case ignore-file= ignore-file-case-insensitive include-zero v|invert-match "+
			"json no-json line-buffered n|line-number N|no-line-number x|line-regexp M|max-columns= "+
			"max-columns-preview m|max-count= max-depth= mmap no-mmap U|multiline multiline-dotall no-config "+
			"I|no-filename H|with-filename no-ignore no-ignore-dot no-ignore-vcs no-ignore-exclude no-ignore-files "+
			"no-ignore-global no-ignore-messages no-ignore-parent no-messages no-pcre2-unicode no-require-git "+
			"no-unicode unicode 0|null null-data one-file-system o|only-matching passthru path-separator= "+
			"P|pcre2 pcre2-version p|pretty q|quiet regex-size-limit= e|regexp= r|replace= S|smart-case sort= "+
			"sortr= stats a|text j|threads= trim t|type= type-list type-add= type-clear= T|type-not= "+
			"u|unrestricted V|version vimgrep w|word-regexp", "")},
		"fd":     fdProgram,
		"fdfind": fdProgram,
	}
})

// dateOperands refuses an operand that sets the clock (MMDDhhmm...): only
// +FORMAT prints.
func dateOperands(p parsedArgs) bool {
	if p.optAfterOperand {
		return false
	}
	for _, op := range p.operands {
		if !strings.HasPrefix(op, "+") {
			return false
		}
	}
	return true
}
