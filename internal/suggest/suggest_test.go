package suggest

import "testing"

func TestClosest(t *testing.T) {
	fields := []string{"name", "edits", "delete", "patch", "base"}
	commands := []string{"tui", "watch", "log", "show", "apply", "init", "demo", "probe", "gc", "mcp", "merge", "slurm", "kube", "version", "help", "completion"}
	flags := []string{"dir", "jobs", "headless", "json", "events", "mode", "net", "tmp", "timeout", "baseline"}
	for _, c := range []struct {
		word  string
		cands []string
		want  string
	}{
		{"edit", fields, "edits"},
		{"Edits", fields, "edits"},
		{"pacth", fields, "patch"}, // two letters swapped
		{"hypothesis", []string{"hypotheses", "command", "timeout"}, "hypotheses"},
		{"headles", flags, "headless"},
		{"basline", flags, "baseline"},
		{"lgo", commands, "log"},
		{"shwo", commands, "show"},
		{"complet", commands, "completion"}, // an abbreviation of one
		{"m", commands, ""},                 // too short to guess
		{"me", commands, ""},
		{"spec.json", commands, ""},
		{"zzzzzz", commands, ""},
		{"", commands, ""},
		{"ti", flags, ""}, // tmp or timeout: nothing is near enough
	} {
		if got := Closest(c.word, c.cands); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}
