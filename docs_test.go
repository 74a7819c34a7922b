package quiver_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/markdown"
)

// The documents whose links must resolve: the README and every page of docs/.
func markdownDocs(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, pages...)
}

var (
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
)

// TestDocLinksResolve: every relative link of README.md and docs/*.md names
// a file of the repository, and its #anchor, if any, a heading of that file
// (as GitHub makes anchors of headings). Links in code (fenced blocks,
// `spans`) are text, not links; links with a scheme leave the repository.
func TestDocLinksResolve(t *testing.T) {
	for _, doc := range markdownDocs(t) {
		for _, l := range relativeLinks(t, doc) {
			target, anchor, _ := strings.Cut(l.target, "#")
			path := doc
			if target != "" {
				path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(target))
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s:%d: link %q: %v", doc, l.line, l.target, err)
				continue
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			if !headingAnchors(t, path)[anchor] {
				t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s", doc, l.line, l.target, path, anchor)
			}
		}
	}
}

type link struct {
	line   int
	target string
}

// relativeLinks lists the links of a Markdown file that stay in the
// repository, outside code.
func relativeLinks(t *testing.T, path string) []link {
	t.Helper()
	var out []link
	for i, line := range proseLines(t, path) {
		if line == "" {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			out = append(out, link{line: i + 1, target: strings.Trim(target, "<>")})
		}
	}
	return out
}

// proseLines returns the file's lines with those of fenced code blocks
// (fences included) emptied, so that line numbers stay right.
func proseLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return markdown.Parse(string(data)).Prose
}

// headingAnchors is the set of anchors GitHub gives the headings of a
// Markdown file: a repeated one gets -1, -2...
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(t, path) {
		text, level := markdown.Heading(line)
		if level == 0 {
			continue
		}
		a := slug(text)
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

var linkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor for a heading: the text of its links kept, lower
// case, every character but letters, digits, '-', '_' and spaces dropped,
// and spaces made '-'.
func slug(heading string) string {
	heading = linkText.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlugIsGitHubs(t *testing.T) {
	tests := []struct{ name, heading, want string }{
		{"punctuation is dropped and spaces become hyphens", "Which configuration is in force: layers and trust", "which-configuration-is-in-force-layers-and-trust"},
		{"a TOML table header keeps its name", "[tools.mcp.servers]", "toolsmcpservers"},
		{"code spans and underscores", "`[tools.cli.aliases]` and low_risk", "toolsclialiases-and-low_risk"},
		{"a link keeps its text", "See [the design](docs/design.md)", "see-the-design"},
		{"a dash between words stays", "5b. Sandbox — the launcher", "5b-sandbox--the-launcher"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := slug(tc.heading); got != tc.want {
				t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
			}
		})
	}
}

func TestRelativeLinksSkipCodeAndURLs(t *testing.T) {
	doc := "See [a](docs/a.md#x) and [b](https://example.com/b.md).\n" +
		"`[not](a-link.md)` is code.\n" +
		"```\n[fenced](nope.md)\n```\n" +
		"[ref]: docs/ref.md\n"
	path := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	want := []link{{1, "docs/a.md#x"}, {6, "docs/ref.md"}}
	if diff := cmp.Diff(want, relativeLinks(t, path), cmp.AllowUnexported(link{})); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}

// mdName is a Markdown file named in prose, such as docs/design.md.
var (
	mdName  = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b`)
	urlText = regexp.MustCompile(`\S+://\S+`)
)

// placeholders are .md names the comments use for "a file of this shape",
// not for a file.
var placeholders = map[string]bool{"NAME.md": true}

// TestGoCommentsCiteExistingFiles: every Markdown file a Go comment names
// (package docs, doc comments, go:embed lines, any comment: what go doc
// shows is a part of these) exists, relative to the comment's package or
// to the module root, where the repository's docs are cited from. A
// citation of a file the repository lacks fails, as one of an architecture
// page at the root once did.
func TestGoCommentsCiteExistingFiles(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				for _, name := range mdName.FindAllString(urlText.ReplaceAllString(c.Text, ""), -1) {
					if placeholders[name] || exists(filepath.Join(filepath.Dir(path), name)) || exists(name) {
						continue
					}
					t.Errorf("%s: a comment cites %s, which is neither in %s nor at the module root", fset.Position(c.Pos()), name, filepath.Dir(path))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestReadmeLayoutListsEveryPackage: the README's Layout table has a row
// for each package of the module, tests-only ones included, and no row for
// a package that is gone: a newcomer reads it as the map.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var want []string
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, modulePath), "/")
		if rel == "" {
			rel = "quiver"
		}
		want = append(want, rel)
	}
	var got []string
	inLayout := false
	for _, line := range proseLines(t, "README.md") {
		if strings.HasPrefix(line, "## ") {
			inLayout = line == "## Layout"
			continue
		}
		if m := layoutRow.FindStringSubmatch(line); inLayout && m != nil {
			got = append(got, m[1])
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README.md's Layout rows differ from go list ./... (-packages +rows):\n%s", diff)
	}
}

const modulePath = "github.com/quiverkit/quiver"

// layoutRow is a row of the Layout table: its first cell is the package's
// path in the module, in code.
var layoutRow = regexp.MustCompile("^\\| `([a-z0-9/_-]+)`")

// maxDocLinesWithoutHeadings is how long a package's documentation may
// run as plain paragraphs; past it, go doc shows a wall of text that a
// reader cannot find their way in, and "# Heading" lines give it sections.
const maxDocLinesWithoutHeadings = 30

// TestLongPackageDocsHaveHeadings: every package documentation longer
// than maxDocLinesWithoutHeadings lines has headings, as log/slog's does.
func TestLongPackageDocsHaveHeadings(t *testing.T) {
	docs := map[string][]string{} // directory -> its package doc comments
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Doc != nil {
			docs[filepath.Dir(path)] = append(docs[filepath.Dir(path)], f.Doc.Text())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, texts := range docs {
		text := strings.Join(texts, "\n")
		lines := strings.Split(strings.TrimSpace(text), "\n")
		if len(lines) <= maxDocLinesWithoutHeadings {
			continue
		}
		headed := false
		for _, l := range lines {
			headed = headed || strings.HasPrefix(l, "# ")
		}
		if !headed {
			t.Errorf("package %s: its documentation runs %d lines without a heading (more than %d): give it \"# Heading\" lines", dir, len(lines), maxDocLinesWithoutHeadings)
		}
	}
}
