package report

import (
	"bytes"
	"strings"
	"testing"
)

// A spec's command element holding escape sequences (OSC 52 sets the
// clipboard, OSC 0 the window title, CSI clears the screen) is shown in
// the header as $'...' text: no control character reaches the writer, and
// a shell reads the same argument back.
func TestTextHeaderShowsACommandsEscapesAsText(t *testing.T) {
	r := &Report{Command: []string{"sh", "-c", "echo hi\x1b]52;c;ZXZpbA==\x07\x1b]0;owned\x1b\\\x1b[2J\x9b31m\u009b1m", "it's"}, Mode: "overlay", Workspace: "/w"}
	var b bytes.Buffer
	WriteText(&b, r)
	head, _, _ := strings.Cut(b.String(), "\n")
	for _, c := range head {
		if c < 0x20 || c == 0x7f || c >= 0x80 && c <= 0x9f {
			t.Fatalf("a control character %U in the header: %q", c, head)
		}
	}
	want := `$ sh -c $'echo hi\e]52;c;ZXZpbA==\x07\e]0;owned\e\\\e[2J\x9b31m\u009b1m' 'it'\''s'`
	if !strings.HasPrefix(head, want) {
		t.Errorf("header %q\nwant it to start %q", head, want)
	}
}
