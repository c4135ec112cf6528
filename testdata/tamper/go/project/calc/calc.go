package calc

// Add returns a+b.
func Add(a, b int) int { return a - b }

// Sub returns a-b.
func Sub(a, b int) int { return a - b }
