package strs_test

import (
	"testing"

	"example.com/calc/strs"
)

func TestRev(t *testing.T) {
	if strs.Rev("ab") != "ba" {
		t.Fatal("Rev")
	}
}
