package cli

import (
	"io"
	"os"
	"testing"
)

// termFile is a stdin that is both a reader and a writer, as *os.File is,
// so the test's IsTerminal can answer for it.
type termFile struct{ io.Reader }

func (termFile) Write(p []byte) (int, error) { return len(p), nil }

// The TUI starts only when a person is at a terminal on both ends and the
// environment does not say otherwise; `shadow tui` forces it.
func TestWantTUIOnlyWhenInteractive(t *testing.T) {
	in, out := termFile{}, io.Discard
	cases := []struct {
		name           string
		inTTY, outTTY  bool
		env            map[string]string
		ui             uiChoice
		headless, want bool
	}{
		{name: "both terminals", inTTY: true, outTTY: true, env: map[string]string{"TERM": "xterm"}, want: true},
		{name: "stdin not a terminal (script, an agent's pty)", outTTY: true, want: false},
		{name: "stdout not a terminal", inTTY: true, want: false},
		{name: "CI=true", inTTY: true, outTTY: true, env: map[string]string{"CI": "true"}, want: false},
		{name: "CI=1", inTTY: true, outTTY: true, env: map[string]string{"CI": "1"}, want: false},
		{name: "CI=false", inTTY: true, outTTY: true, env: map[string]string{"CI": "false"}, want: true},
		{name: "CI=0", inTTY: true, outTTY: true, env: map[string]string{"CI": "0"}, want: true},
		{name: "TERM=dumb", inTTY: true, outTTY: true, env: map[string]string{"TERM": "dumb"}, want: false},
		{name: "--headless", inTTY: true, outTTY: true, headless: true, want: false},
		{name: "shadow tui forces it", ui: forceTUI, env: map[string]string{"CI": "true", "TERM": "dumb"}, want: true},
	}
	for _, c := range cases {
		s := Streams{In: in, Out: out, Err: io.Discard,
			IsTerminal: func(w io.Writer) bool {
				switch w.(type) {
				case termFile:
					return c.inTTY
				default:
					return c.outTTY
				}
			},
			Getenv: func(k string) string { return c.env[k] },
		}
		f := &runFlags{headless: c.headless}
		if got := wantTUI(f, c.ui, s); got != c.want {
			t.Errorf("%s: wantTUI = %v, want %v", c.name, got, c.want)
		}
	}
	// A stdin that is not a file (a pipe's reader in a test) is no terminal.
	s := Streams{In: os.Stdin, Out: os.Stdout, IsTerminal: func(io.Writer) bool { return true }, Getenv: func(string) string { return "" }}
	if !s.interactive() {
		t.Error("*os.File stdin and stdout that are terminals: not interactive")
	}
}
