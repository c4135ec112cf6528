package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// `shadow show RUN/HYP` must not write a hypothesis's raw escape sequences to
// the terminal (OSC 52 sets the clipboard, clear screen, the title): they are
// dropped unless --raw (docs/cli.md, show's flags); --patch to a pipe stays
// exact.
func TestShowDropsTerminalControlSequencesUnlessRaw(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	evil := "\x1b]52;c;cm0gLXJmIH4vCg==\x07\x1b]0;pwned\x07\x1b[2J\x1b[Hhello"
	spec := `{"hypotheses":[{"name":"evil","edits":[{"path":"v.txt","content":"` + strings.ReplaceAll(strings.ReplaceAll(evil, "\x1b", `\u001b`), "\x07", `\u0007`) + `\n"}]}]}`
	cmd := []string{"sh", "-c", `printf '\033]52;c;cm0gLXJmIH4vCg==\007\033]0;pwned\007\033[2J\033[Hboom\n'; exit 1`}
	if _, errb, err := execCLI(spec, append([]string{"--headless", "--mode", "inplace", "-C", ws, "-", "--"}, cmd...)...); code(err) != 1 {
		t.Fatalf("run: %v\n%s", err, errb)
	}
	out, errb, err := execCLI("", "show", "-C", ws, "@last/evil")
	if err != nil {
		t.Fatalf("show: %v %s", err, errb)
	}
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "boom") || !strings.Contains(out, "hello") {
		t.Errorf("show wrote control sequences, or lost the text around them:\n%q", out)
	}
	raw, _, err := execCLI("", "show", "--raw", "-C", ws, "@last/evil")
	if err != nil || !strings.Contains(raw, "\x1b]52;c;") {
		t.Errorf("show --raw must write the output as recorded: %v\n%q", err, raw)
	}
	// --patch to a pipe (execCLI's stdout is no terminal): exact, for git apply.
	p, _, err := execCLI("", "show", "--patch", "-C", ws, "@last/evil")
	if err != nil || !strings.Contains(p, "\x1b]52;c;") {
		t.Errorf("show --patch to a pipe must be the exact patch: %v\n%q", err, p)
	}
}
