package edit

import "strings"

// A model that reads a tab-indented file often writes its old_string with
// spaces, and nests its new_string with spaces too; or it sends a nested
// block flattened, every line at one depth. Re-indenting turns the model's
// indentation of a changed line into the file's, one line at a time: the line
// takes the indentation of the file line matched by the old line nearest it
// at the same depth, or, when no old line is at its depth, that of the
// nearest old line in depth, moved by the difference counted in the model's
// indent unit and written in the file's.

// tabWidth is the columns a tab counts for when comparing depths.
const tabWidth = 4

func indentWidth(ind string) int {
	w := 0
	for i := 0; i < len(ind); i++ {
		if ind[i] == '\t' {
			w += tabWidth
		} else {
			w++
		}
	}
	return w
}

// indentPair is a line of old_string and the file line it matched.
type indentPair struct{ model, file string }

// reindenter re-indents the changed lines of one place.
type reindenter struct {
	pairs     []indentPair // by old line
	ok        []bool       // pairs[k] is a matched, non-blank line
	modelUnit int          // the model's indent step, in columns
	unit      string       // the file's indent step, "" until needed
	fileUnit  func() string
	newText   []string
	trimTail  bool // the model added trailing whitespace the file lacks
}

func newReindenter(old, file []string, fileOf []int, newLines []string, fileUnit func() string) *reindenter {
	r := &reindenter{pairs: make([]indentPair, len(old)), ok: make([]bool, len(old)), fileUnit: fileUnit, newText: newLines}
	var usable []indentPair
	baseModel, baseFile := "", ""
	for k, o := range old {
		if fileOf[k] < 0 || strings.TrimSpace(o) == "" {
			continue
		}
		p := indentPair{model: o, file: file[fileOf[k]]}
		r.pairs[k], r.ok[k] = p, true
		if len(usable) == 0 || indentWidth(indentOf(o)) < indentWidth(baseModel) {
			baseModel = indentOf(o)
		}
		if len(usable) == 0 || indentWidth(indentOf(p.file)) < indentWidth(baseFile) {
			baseFile = indentOf(p.file)
		}
		usable = append(usable, p)
		if o != trimRight(o) && p.file == trimRight(p.file) {
			r.trimTail = true
		}
	}
	r.modelUnit = modelIndentUnit(usable, newLines, baseModel)
	r.unit = pairsFileUnit(usable, baseFile)
	return r
}

// line re-indents the changed line l, which sits at s among the old lines.
// A line with no matched old line to go by is written as typed.
func (r *reindenter) line(l string, s span) string {
	if r.trimTail {
		l = trimRight(l)
	}
	if strings.TrimSpace(l) == "" {
		return l
	}
	ind := indentOf(l)
	k := r.ref(indentWidth(ind), s)
	if k < 0 {
		return l
	}
	p := r.pairs[k]
	delta := indentWidth(ind) - indentWidth(indentOf(p.model))
	if delta == 0 {
		return indentOf(p.file) + l[len(ind):]
	}
	if r.unit == "" {
		r.unit = fallbackUnit(r.fileUnit(), r.newText, r.modelUnit)
	}
	return shiftIndent(indentOf(p.file), r.unit, delta, r.modelUnit) + l[len(ind):]
}

// ref returns the old line a changed line at depth w (columns) and position
// s takes its indentation from: the one nearest in depth, then nearest in
// position, then deepest in the file — so that a line inserted between an
// if and its flattened body goes into the body. It returns -1 when no old
// line matched a file line.
func (r *reindenter) ref(w int, s span) int {
	best, bestDepth, bestRank, bestFile := -1, 0, 0, 0
	for k, p := range r.pairs {
		if !r.ok[k] {
			continue
		}
		depth, rank, file := abs(w-indentWidth(indentOf(p.model))), s.rank(k), indentWidth(indentOf(p.file))
		if best < 0 || depth < bestDepth || depth == bestDepth && (rank < bestRank || rank == bestRank && file > bestFile) {
			best, bestDepth, bestRank, bestFile = k, depth, rank, file
		}
	}
	return best
}

// shiftIndent returns base moved by delta columns of the model's indentation,
// counted in levels of modelUnit and written in fileUnit.
func shiftIndent(base, fileUnit string, delta, modelUnit int) string {
	if delta >= 0 {
		return base + strings.Repeat(fileUnit, delta/modelUnit) + strings.Repeat(" ", delta%modelUnit)
	}
	levels := (-delta + modelUnit - 1) / modelUnit
	for ; levels > 0; levels-- {
		switch {
		case fileUnit != "" && strings.HasSuffix(base, fileUnit):
			base = base[:len(base)-len(fileUnit)]
		case base != "":
			base = base[:len(base)-1]
		}
	}
	return base
}

// fallbackUnit is the file's unit, or when the file shows none the model's
// own: a tab if its text indents with tabs, else its step in spaces.
func fallbackUnit(file string, lines []string, modelUnit int) string {
	if file != "" {
		return file
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "\t") {
			return "\t"
		}
	}
	return strings.Repeat(" ", modelUnit)
}

// modelIndentUnit returns the model's indent step in columns: the greatest
// common divisor of the depths of its lines below the shallowest one, or
// tabWidth when all its lines sit at one depth.
func modelIndentUnit(pairs []indentPair, newLines []string, baseModel string) int {
	base := indentWidth(baseModel)
	g := 0
	add := func(l string) {
		if strings.TrimSpace(l) == "" {
			return
		}
		if d := indentWidth(indentOf(l)) - base; d != 0 {
			g = gcd(g, abs(d))
		}
	}
	for _, p := range pairs {
		add(p.model)
	}
	for _, l := range newLines {
		add(l)
	}
	if g == 0 {
		return tabWidth
	}
	return g
}

// pairsFileUnit returns the file's indent step as seen in the matched lines:
// "\t" when the deeper lines add tabs, so many spaces when they add spaces,
// "" when the matched lines do not show one.
func pairsFileUnit(pairs []indentPair, baseFile string) string {
	tabs, g := false, 0
	for _, p := range pairs {
		if strings.TrimSpace(p.file) == "" {
			continue
		}
		fi := indentOf(p.file)
		extra, ok := strings.CutPrefix(fi, baseFile)
		if !ok || extra == "" {
			continue
		}
		switch strings.Trim(extra, "\t") {
		case "":
			tabs = true
		case strings.Repeat(" ", len(extra)):
			g = gcd(g, len(extra))
		}
	}
	switch {
	case tabs && g == 0:
		return "\t"
	case g > 0 && !tabs:
		return strings.Repeat(" ", g)
	}
	return ""
}

// detectIndentUnit guesses a file's indent step from its first lines: a tab
// if most indented lines start with one, otherwise the most common increase
// in spaces from one line to the next.
func detectIndentUnit(lx *lineIndex) string {
	const sample = 10_000
	tabs, spaces := 0, 0
	steps := map[int]int{}
	prev := 0
	for i := 0; i < lx.n() && i < sample; i++ {
		l := lx.line(i)
		if strings.TrimSpace(l) == "" {
			continue
		}
		switch l[0] {
		case '\t':
			tabs++
		case ' ':
			spaces++
		}
		w := len(l) - len(strings.TrimLeft(l, " "))
		if w > prev {
			steps[w-prev]++
		}
		prev = w
	}
	switch {
	case tabs == 0 && spaces == 0:
		return ""
	case tabs >= spaces:
		return "\t"
	}
	best, count := 4, 0
	for step, c := range steps {
		if c > count || c == count && step < best {
			best, count = step, c
		}
	}
	return strings.Repeat(" ", best)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
