// Package suggest finds the word a typo was meant to be ("did you mean"),
// for unknown commands, flags and spec fields alike.
package suggest

import "strings"

// Closest is the candidate nearest to word, or "" when none is near
// enough to be what was meant: an edit distance (insertions, deletions,
// substitutions and swaps of two neighbours, case ignored) of at most a
// third of the word's length, at least 1; or a candidate that starts
// with word (an abbreviation) when it is the only one. Ties go to the
// earlier candidate.
func Closest(word string, candidates []string) string {
	w := strings.ToLower(word)
	if w == "" {
		return ""
	}
	best, bestD := "", len(w)/3
	if bestD < 1 {
		bestD = 1
	}
	for _, c := range candidates {
		if d := distance(w, strings.ToLower(c)); d <= bestD && (best == "" || d < distance(w, strings.ToLower(best))) {
			best, bestD = c, d
		}
	}
	if best != "" || len(w) < 3 {
		return best
	}
	prefixed := ""
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), w) {
			if prefixed != "" {
				return ""
			}
			prefixed = c
		}
	}
	return prefixed
}

// distance is the optimal string alignment distance of a and b (bytes).
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
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
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
