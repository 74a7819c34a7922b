package edit

import "strings"

// A model that reads a tab-indented file often writes its old_string with
// spaces, and nests its new_string with spaces too. Re-indenting turns the
// model's indentation into the file's: a line indented like a line of
// old_string gets the indentation of the file line it matched; any other line
// gets the file's indentation at the same depth, counted in the model's
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

// reindent rewrites the indentation of text's lines from the model's
// indentation to the file's, using the matched pairs, and the file's indent
// unit when the pairs do not show one. fileUnit is called only then, and
// returns "" when the file shows none either.
func reindent(text string, pairs []indentPair, fileUnit func() string) string {
	exact := map[string]string{}
	var baseModel, baseFile string
	baseSet := false
	for _, p := range pairs {
		if strings.TrimSpace(p.model) == "" {
			continue
		}
		mi, fi := indentOf(p.model), indentOf(p.file)
		if _, ok := exact[mi]; !ok {
			exact[mi] = fi
		}
		if !baseSet || indentWidth(mi) < indentWidth(baseModel) {
			baseModel, baseFile, baseSet = mi, fi, true
		}
	}
	if !baseSet {
		return text
	}
	lines := strings.Split(text, "\n")
	modelUnit := modelIndentUnit(pairs, lines, baseModel)
	unit := pairsFileUnit(pairs, baseFile)
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := indentOf(l)
		if fi, ok := exact[ind]; ok {
			lines[i] = fi + l[len(ind):]
			continue
		}
		if unit == "" {
			unit = fallbackUnit(fileUnit(), text, modelUnit)
		}
		lines[i] = shiftIndent(baseFile, unit, indentWidth(ind)-indentWidth(baseModel), modelUnit) + l[len(ind):]
	}
	return strings.Join(lines, "\n")
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
func fallbackUnit(file, text string, modelUnit int) string {
	switch {
	case file != "":
		return file
	case strings.Contains(text, "\n\t") || strings.HasPrefix(text, "\t"):
		return "\t"
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
