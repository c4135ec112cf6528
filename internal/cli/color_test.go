package cli

import (
	"io"
	"strings"
	"testing"
)

// --color: auto colours the headless report on a terminal unless NO_COLOR
// or TERM=dumb; always and never force it.
func TestColorDecision(t *testing.T) {
	for _, c := range []struct {
		mode colorMode
		tty  bool
		env  map[string]string
		want bool
	}{
		{"", true, nil, true},
		{"auto", false, nil, false},
		{"auto", true, map[string]string{"NO_COLOR": "1"}, false},
		{"auto", true, map[string]string{"TERM": "dumb"}, false},
		{"always", false, map[string]string{"NO_COLOR": "1"}, true},
		{"never", true, nil, false},
	} {
		s := Streams{IsTerminal: func(io.Writer) bool { return c.tty }, Getenv: func(k string) string { return c.env[k] }}
		if got := s.colorOn(c.mode, io.Discard); got != c.want {
			t.Errorf("%+v: %v", c, got)
		}
	}
	if _, _, err := execCLI("", "--color", "sometimes", "x.json", "--", "true"); code(err) != 2 {
		t.Errorf("--color sometimes: exit %d", code(err))
	}
}

func TestColorReport(t *testing.T) {
	rep := "$ go test   (2 hypothesis(es), overlay mode, on /w)\n  fix   exit 0  in 1.0s  <- winner\n  bad   exit 1  in 1.0s\nwinner: fix\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n\n--- bad: exit 1\nreason: x.go:1: boom\ntail line\n"
	out := string(colorReport([]byte(rep)))
	for _, want := range []string{sgrBold + sgrGreen + "winner: fix", sgrGreen + "+b" + sgrReset, sgrRed + "-a" + sgrReset, sgrBold + sgrRed + "--- bad: exit 1", sgrYellow + "reason: x.go:1: boom", "\ntail line\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("coloured report lacks %q:\n%q", want, out)
		}
	}
	if strings.Contains(out, sgrRed+"--- a/x.go") {
		t.Errorf("the winner's diff header coloured as a failure")
	}
}
