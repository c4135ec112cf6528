package calc

import "testing"

func TestAddZero(t *testing.T) {
	if got := Add(0, 0); got != 0 {
		t.Fatalf("Add(0, 0) = %d, want 0", got)
	}
}

func TestAddRightZero(t *testing.T) {
	if got := Add(5, 0); got != 5 {
		t.Fatalf("Add(5, 0) = %d, want 5", got)
	}
}

func TestAddTwoPlusTwo(t *testing.T) {
	if got := Add(2, 2); got != 4 {
		t.Fatalf("Add(2, 2) = %d, want 4", got)
	}
}
