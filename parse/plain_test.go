package parse

import "testing"

func TestPlainClosingLine(t *testing.T) {
	cases := []struct {
		out                     string
		ok                      bool
		passed, failed, skipped int
	}{
		{"running\n3 passed, 1 failed\n", true, 3, 1, 0},
		{"tests: 2 passed, 0 failed, 4 skipped\n", true, 2, 0, 4},
		{"suite a\n1 passed, 0 failed\nsuite b\n2 passed, 2 failed\n", true, 3, 2, 0},
		{"we have 3 passed, 1 failed tests\n", false, 0, 0, 0},
		{"hello\n", false, 0, 0, 0},
	}
	for _, c := range cases {
		s := Parse([]byte(c.out), nil)
		if (s != nil) != c.ok {
			t.Errorf("%q: recognised=%v, want %v", c.out, s != nil, c.ok)
			continue
		}
		if s != nil && (s.Passed != c.passed || s.Failed != c.failed || s.Skipped != c.skipped || s.Framework != "plain") {
			t.Errorf("%q: got %+v", c.out, s)
		}
	}
}
