package docs

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// diagramEdges reads the arrows of docs/architecture.md's import diagram:
//
//   - "A ─> B, C": A imports B and C; "A, B ─> C": both import C; a
//     chain "A ─> B ─> C" is A imports B, B imports C;
//   - "A ─┬─> B" opens a fork at the ┬: each "├─> X" or "└─> X" in that
//     column below it (│ carrying the column down) is an arrow from A;
//   - "dir/{a,b}" is dir/a and dir/b; "main" is the module root (".").
//
// Each arrow is a direct import, never a path through others: the test
// holds every one to go list.
func diagramEdges(block string) ([][2]string, error) {
	lines := [][]rune{}
	for _, l := range strings.Split(block, "\n") {
		lines = append(lines, []rune(l))
	}
	var edges [][2]string
	for li, line := range lines {
		arrows := arrowsIn(line)
		for ai, c := range arrows {
			prev := 0
			if ai > 0 {
				prev = arrows[ai-1] + 2
			}
			left := strings.TrimRight(string(line[prev:c]), "─ ")
			var from []string
			var err error
			switch {
			case strings.HasSuffix(left, "┬"):
				from, err = diagramNames(strings.TrimRight(strings.TrimSuffix(left, "┬"), "─ "))
			case strings.HasSuffix(left, "├"), strings.HasSuffix(left, "└"):
				from, err = forkSource(lines, li, prev+len([]rune(left))-1)
			default:
				from, err = diagramNames(left)
			}
			if err != nil {
				return nil, fmt.Errorf("diagram line %d: %v", li+1, err)
			}
			next := len(line)
			if ai+1 < len(arrows) {
				next = arrows[ai+1]
			}
			to, err := diagramNames(strings.TrimRight(string(line[c+2:next]), "─┬ "))
			if err != nil {
				return nil, fmt.Errorf("diagram line %d: %v", li+1, err)
			}
			if len(from) == 0 || len(to) == 0 {
				return nil, fmt.Errorf("diagram line %d: an arrow without a package at both ends", li+1)
			}
			for _, f := range from {
				for _, t := range to {
					edges = append(edges, [2]string{f, t})
				}
			}
		}
	}
	return edges, nil
}

// arrowsIn is the column of each "─>" in line.
func arrowsIn(line []rune) []int {
	var at []int
	for i := 0; i+1 < len(line); i++ {
		if line[i] == '─' && line[i+1] == '>' {
			at = append(at, i)
		}
	}
	return at
}

// forkSource is the package a branch at column col of line li hangs from:
// up the column through │ and ├ to the ┬, and the names just before it.
func forkSource(lines [][]rune, li, col int) ([]string, error) {
	for k := li - 1; k >= 0; k-- {
		if col >= len(lines[k]) {
			break
		}
		switch lines[k][col] {
		case '│', '├':
			continue
		case '┬':
			line := lines[k]
			start := 0
			for _, a := range arrowsIn(line) {
				if a < col {
					start = a + 2
				}
			}
			return diagramNames(strings.TrimRight(string(line[start:col]), "─ "))
		}
		break
	}
	return nil, fmt.Errorf("the branch at column %d hangs from no ┬ above it", col+1)
}

var diagramName = regexp.MustCompile(`^[a-z0-9_./]+$`)

// diagramNames splits "a, b/{c,d}" into packages.
func diagramNames(s string) ([]string, error) {
	var parts []string
	depth, startAt := 0, 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[startAt:i])
				startAt = i + 1
			}
		}
	}
	parts = append(parts, s[startAt:])
	var names []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		expanded := []string{p}
		if open := strings.Index(p, "{"); open >= 0 && strings.HasSuffix(p, "}") {
			expanded = nil
			for _, alt := range strings.Split(p[open+1:len(p)-1], ",") {
				expanded = append(expanded, p[:open]+strings.TrimSpace(alt))
			}
		}
		for _, n := range expanded {
			if n == "main" {
				n = "."
			}
			if !diagramName.MatchString(n) {
				return nil, fmt.Errorf("%q is not a package name", n)
			}
			names = append(names, n)
		}
	}
	return names, nil
}

// The reader itself, on a drawing with each shape: a fork, a chain, a list
// on either side, braces. A misread arrow would let a false edge through.
func TestDiagramEdgesReadsEachShape(t *testing.T) {
	block := "" +
		"main ─┬─> a ─┬─> b ─> c, d\n" +
		"      │      └─> e/{f,g}\n" +
		"      └─> h\n" +
		"x, y ─> z\n"
	got, err := diagramEdges(block)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{".", "a"}, {"a", "b"}, {"b", "c"}, {"b", "d"}, {"a", "e/f"}, {"a", "e/g"}, {".", "h"}, {"x", "z"}, {"y", "z"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagramEdges:\n got %v\nwant %v", got, want)
	}
	if _, err := diagramEdges("a ─> b\n  └─> c\n"); err == nil {
		t.Error("a branch under no fork was read")
	}
}
