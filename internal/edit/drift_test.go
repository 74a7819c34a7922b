package edit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// driftCase is a change a model means to make to a region of a real source
// file in testdata/drift: the lines it replaces, written with the file's own
// whitespace.
type driftCase struct {
	name        string
	file        string
	first, last int              // the region old_string covers (1-based, inclusive)
	edits       map[int][]string // a file line and the lines that take its place
	misremember int              // a line of the region the block-anchor drift gets a word of wrong
	wrong       [2]string        // that word and what the model writes instead
}

var driftCases = []driftCase{
	{
		name: "go: struct with aligned fields", file: "server.go", first: 12, last: 17,
		edits: map[int][]string{
			16: {"\tMaxBodyBytes int64         // larger bodies are refused", "\tDebug bool // log every request"},
		},
		misremember: 14, wrong: [2]string{"headers", "header"},
	},
	{
		name: "go: nested ifs", file: "server.go", first: 35, last: 48,
		edits: map[int][]string{
			37: {"\t\tif errors.Is(err, ErrNotFound) {", "\t\t\ts.metrics.notFound.Add(1)"},
			38: {"\t\t\thttp.Error(w, \"item \"+id+\" not found\", http.StatusNotFound)"},
			41: {},
			45: {"\tw.Header().Set(\"Content-Type\", \"application/json\")", "\tw.Header().Set(\"Cache-Control\", \"no-store\")"},
		},
		misremember: 42, wrong: [2]string{"internal error", "internal server error"},
	},
	{
		name: "python: methods with nested blocks", file: "models.py", first: 19, last: 30,
		edits: map[int][]string{
			24: {`            raise StockError(f"reserve {count}: must be at least 1")`},
			25: {"        if count > self.available():", "            self.refresh()"},
			29: {"        self.reserved += count", `        self.log.append(("reserve", count))`},
		},
		misremember: 27, wrong: [2]string{"only", "just"},
	},
	{
		name: "typescript: a callback with an if", file: "store.ts", first: 36, last: 42,
		edits: map[int][]string{
			38: {"      if (t.done) {", "        skipped.push(t.id);"},
			41: {"      return t.tags.some((x) => x === tag);"},
		},
		misremember: 39, wrong: [2]string{"hidden", "skipped"},
	},
	{
		name: "yaml: a container spec", file: "deploy.yaml", first: 21, last: 41,
		edits: map[int][]string{
			22: {"          image: registry.example.com/inventory:1.9.0"},
			30: {"              value: debug"},
			39: {"              memory: 256Mi", "              ephemeral-storage: 1Gi"},
		},
		misremember: 34, wrong: [2]string{"inventory-db", "inventory-dbs"},
	},
}

// drift is how a model's copy of some lines differs from the file: it is
// applied alike to old_string and new_string, as a model applies it to all
// it writes.
type drift struct {
	name     string
	strategy Strategy
	apply    func(file string, lines []string) string
}

var drifts = []drift{
	{"trailing spaces", LineTrimmed, func(_ string, ls []string) string {
		return joinMapped(ls, func(l string) string { return l + "  " })
	}},
	{"alignment collapsed", WhitespaceNormalized, func(_ string, ls []string) string {
		return joinMapped(ls, func(l string) string { return indentOf(l) + collapse(l) })
	}},
	{"indentation in another unit", IndentationFlexible, func(file string, ls []string) string {
		return joinMapped(ls, func(l string) string { return otherUnit(file, l) })
	}},
	{"nested block flattened", IndentationFlexible, func(_ string, ls []string) string {
		return joinMapped(ls, trimLeft)
	}},
	{"quotes and newlines escaped", EscapeNormalized, func(_ string, ls []string) string {
		return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(strings.Join(ls, "\n"))
	}},
	{"a word misremembered", BlockAnchor, func(_ string, ls []string) string {
		return strings.Join(ls, "\n")
	}},
	{"a word misremembered, flattened", BlockAnchor, func(_ string, ls []string) string {
		return joinMapped(ls, trimLeft)
	}},
}

// otherUnit re-indents a line in a unit other than the file's: tabs become
// four spaces, four spaces two, two spaces four.
func otherUnit(file string, l string) string {
	ind := indentOf(l)
	switch filepath.Ext(file) {
	case ".go":
		return strings.ReplaceAll(ind, "\t", "    ") + l[len(ind):]
	case ".py":
		return strings.Repeat("  ", len(ind)/4) + l[len(ind):]
	}
	return strings.Repeat("    ", len(ind)/2) + l[len(ind):]
}

func joinMapped(lines []string, f func(string) string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = f(l)
	}
	return strings.Join(out, "\n")
}

// TestDriftLeavesNoTrace edits real source files (Go with tabs, Python with
// four spaces, TypeScript with two, YAML) through each tolerant strategy,
// with old_string and new_string carrying the drift that strategy forgives.
// The file must come out as the model meant it: every line the edit did not
// change keeps its bytes — the diff against the original holds only lines
// the model changed, and no change that is whitespace only — and the lines
// it did change take the file's indentation.
func TestDriftLeavesNoTrace(t *testing.T) {
	covered := map[string]map[Strategy]bool{}
	for _, c := range driftCases {
		data, err := os.ReadFile(filepath.Join("testdata", "drift", c.file))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		region, intended := c.lines(lines)
		want := strings.Join(slices.Concat(lines[:c.first-1], intended, lines[c.last:]), "\n") + "\n"
		for _, d := range drifts {
			old, new := region, intended
			if d.strategy == BlockAnchor {
				old, new = c.misremembered(t, lines, region), c.misremembered(t, lines, intended)
			}
			e := Edit{Old: d.apply(c.file, old), New: d.apply(c.file, new)}
			if e.Old == strings.Join(region, "\n") {
				continue // the region has nothing this drift changes; coverage is checked below
			}
			t.Run(c.name+"/"+d.name, func(t *testing.T) {
				m, err := Find(text, e)
				if err != nil {
					t.Fatalf("Find: %v", err)
				}
				if m.Strategy != d.strategy {
					t.Fatalf("matched %s, want %s", m.Strategy, d.strategy)
				}
				got := Apply(text, m.Changes)
				checkOnlyMeantLines(t, lines, got, c, intended)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("file after the edit (-want +got):\n%s", diff)
				}
				checkDiffApplies(t, text, Unified("a/f", "b/f", text, m.Changes), got)
			})
			if covered[c.file] == nil {
				covered[c.file] = map[Strategy]bool{}
			}
			covered[c.file][d.strategy] = true
		}
	}
	for _, c := range driftCases {
		for _, s := range Strategies[1:] {
			if !covered[c.file][s] {
				t.Errorf("%s: no case exercised %s", c.file, s)
			}
		}
	}
}

// lines returns the region's lines and the lines the model means to put in
// their place.
func (c driftCase) lines(file []string) (region, intended []string) {
	region = file[c.first-1 : c.last]
	for n := c.first; n <= c.last; n++ {
		if repl, ok := c.edits[n]; ok {
			intended = append(intended, repl...)
			continue
		}
		intended = append(intended, file[n-1])
	}
	return region, intended
}

// misremembered returns lines with a word of the case's misremembered file
// line replaced.
func (c driftCase) misremembered(t *testing.T, file, lines []string) []string {
	t.Helper()
	target := file[c.misremember-1]
	i := slices.Index(lines, target)
	if i < 0 || !strings.Contains(target, c.wrong[0]) {
		t.Fatalf("line %d (%q) is not among the lines, or lacks %q", c.misremember, target, c.wrong[0])
	}
	out := slices.Clone(lines)
	out[i] = strings.Replace(target, c.wrong[0], c.wrong[1], 1)
	return out
}

// checkOnlyMeantLines diffs the edited file against the original and fails
// for every removed line the case does not edit, every added line it does
// not mean to write, and every change that is whitespace only.
func checkOnlyMeantLines(t *testing.T, orig []string, got string, c driftCase, intended []string) {
	t.Helper()
	after := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	wsOnly := 0
	for _, h := range lineHunks(orig, after) {
		for k := h.a0; k < h.a1; k++ {
			if _, ok := c.edits[k+1]; !ok {
				t.Errorf("line %d changed, but the model did not change it: %q", k+1, orig[k])
			}
		}
		for k := h.b0; k < h.b1; k++ {
			if !slices.Contains(intended, after[k]) {
				t.Errorf("line %q written, but the model did not mean it", after[k])
			}
		}
		for k := 0; k < min(h.a1-h.a0, h.b1-h.b0); k++ {
			if strings.Join(strings.Fields(orig[h.a0+k]), "") == strings.Join(strings.Fields(after[h.b0+k]), "") {
				wsOnly++
			}
		}
	}
	if wsOnly != 0 {
		t.Errorf("%d whitespace-only changes", wsOnly)
	}
}
