package edit

import "strings"

// maxSimilarityCells bounds the work of one character-level comparison, and
// similarityBudget that of all the comparisons of one search; past them texts
// are compared line by line instead, which is cheaper and, for texts that
// large, about as telling. Without the budget an old_string of long, repeated
// lines would make a search quadratic many times over.
const (
	maxSimilarityCells = 4_000_000
	similarityBudget   = 64_000_000
)

// scorer measures similarity within a budget of Levenshtein table cells.
type scorer struct{ budget int }

func newScorer() *scorer { return &scorer{budget: similarityBudget} }

// similarity returns how alike a and b are, from 0 (nothing in common) to 1
// (equal): one minus their Levenshtein distance over the longer length,
// counted in runes.
func (s *scorer) similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	ra, rb := []rune(a), []rune(b)
	longer := max(len(ra), len(rb))
	if longer == 0 {
		return 1
	}
	cells := len(ra) * len(rb)
	if cells > maxSimilarityCells || cells > s.budget {
		return lineSimilarity(a, b)
	}
	s.budget -= cells
	return 1 - float64(levenshtein(ra, rb))/float64(longer)
}

// similarityBound is an upper bound of similarity(a, b) that costs nothing:
// the distance is at least the difference in length.
func similarityBound(a, b string) float64 {
	la, lb := len(a), len(b)
	if la == 0 && lb == 0 {
		return 1
	}
	d := la - lb
	if d < 0 {
		d = -d
	}
	return 1 - float64(d)/float64(max(la, lb))
}

func levenshtein(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// lineSimilarity is the Dice coefficient of the two texts' multisets of lines.
func lineSimilarity(a, b string) float64 {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	count := make(map[string]int, len(la))
	for _, l := range la {
		count[l]++
	}
	common := 0
	for _, l := range lb {
		if count[l] > 0 {
			count[l]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(la)+len(lb))
}
