package calc

import "os"

// debug is set by CALC_DEBUG.
var debug = os.Getenv("CALC_DEBUG") != ""

// Add returns a+b.
func Add(a, b int) int { return a + b }

// Sub returns a-b.
func Sub(a, b int) int { return a - b }

// Pair is two ints.
type Pair struct{ A, B int }

// Equal compares both fields.
func (p Pair) Equal(o Pair) bool {
	return p.A == o.A && p.B == o.B
}
