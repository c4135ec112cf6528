package calc

// Add returns the sum of a and b
// (it used to subtract b).
func Add(a, b int) int {
	return a + b
}
