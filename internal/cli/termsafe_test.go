package cli

import (
	"bytes"
	"testing"
)

// What a hostile hypothesis prints must not reach the terminal as
// commands: OSC 52 (clipboard), titles, clear screen, cursor moves, C1
// controls; text around them stays, split writes too.
func TestTermSafeDropsControlSequences(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\n", "plain text\n"},
		{"a\x1b]52;c;cm0gLXJmIH4=\x07b\n", "ab\n"},               // OSC 52, BEL-terminated
		{"a\x1b]0;pwned\x1b\\b\n", "ab\n"},                       // title, ST-terminated
		{"\x1b[2J\x1b[Hclear\x1b[31mred\x1b[0m\n", "clearred\n"}, // clear, home, SGR
		{"x\x1bPq#0;2;0;0;0\x1b\\y", "xy"},                       // DCS (sixel)
		{"a\u009b31mb\u009d0;t\u009cc", "a31mb0;tc"},             // C1 CSI/OSC/ST dropped (their text stays)
		{"bell\a back\bspace\n", "bell backspace\n"},
		{"rm -rf /\rsafe\n", "rm -rf /\nsafe\n"}, // a lone CR cannot hide a line
		{"dos\r\nline\r\n", "dos\nline\n"},
		{"tab\there é ü\n", "tab\there é ü\n"},
		{"\x1b(Bcharset\n", "charset\n"},
	} {
		var b bytes.Buffer
		w := newTermSafe(&b)
		w.Write([]byte(c.in))
		if b.String() != c.want {
			t.Errorf("%q: got %q, want %q", c.in, b.String(), c.want)
		}
		// Byte by byte: sequences split across writes.
		b.Reset()
		w = newTermSafe(&b)
		for i := 0; i < len(c.in); i++ {
			w.Write([]byte{c.in[i]})
		}
		if b.String() != c.want {
			t.Errorf("%q byte by byte: got %q, want %q", c.in, b.String(), c.want)
		}
	}
}
