package cli

import "io"

// termSafe is a writer that drops what a terminal would act on rather than
// show: escape sequences (CSI: cursor moves, clear screen, colours; OSC:
// window titles, OSC 52 clipboard writes, hyperlinks; DCS, SOS, PM, APC
// strings), the C1 controls (U+0080-U+009F, which some terminals take as
// the same sequences), and the C0 controls but tab and newline. A lone
// carriage return (which lets a line overwrite what came before it on
// screen) becomes a newline. A hypothesis's output and diff are the
// hypothesis's to write: `shadow show` must not let them set the user's
// clipboard or retitle their terminal (ECMA-48 §5.4-5.6, xterm's
// ctlseqs). The text report strips its tails the same way (engine's
// stripANSI). Sequences split across Write calls are followed.
type termSafe struct {
	w     io.Writer
	state int
	cr    bool // a \r is pending: a newline unless \n follows
	buf   []byte
}

const (
	tsText    = iota
	tsEsc     // after ESC
	tsCSI     // ESC [ ... final byte 0x40-0x7e
	tsString  // OSC/DCS/SOS/PM/APC body, until BEL or ST
	tsStrEsc  // ESC inside a string: \ ends it
	tsC2      // after 0xC2: 0x80-0x9F is a C1 control
	tsEscNext // ESC followed by an intermediate byte: one more byte
)

func newTermSafe(w io.Writer) *termSafe { return &termSafe{w: w} }

func (t *termSafe) Write(p []byte) (int, error) {
	t.buf = t.buf[:0]
	for _, c := range p {
		t.byte(c)
	}
	if _, err := t.w.Write(t.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t *termSafe) byte(c byte) {
	switch t.state {
	case tsEsc:
		switch {
		case c == '[':
			t.state = tsCSI
		case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
			t.state = tsString
		case c >= 0x20 && c <= 0x2f: // ESC ( B and the like
			t.state = tsEscNext
		default:
			t.state = tsText
		}
		return
	case tsEscNext:
		t.state = tsText
		return
	case tsCSI:
		if c >= 0x40 && c <= 0x7e {
			t.state = tsText
		} else if c < 0x20 && c != 0x1b {
			t.state = tsText // a malformed sequence ends at a control
			t.byte(c)
		} else if c == 0x1b {
			t.state = tsEsc
		}
		return
	case tsString:
		switch c {
		case 0x07:
			t.state = tsText
		case 0x1b:
			t.state = tsStrEsc
		}
		return
	case tsStrEsc:
		if c == '\\' {
			t.state = tsText
		} else if c != 0x1b {
			t.state = tsString
		}
		return
	case tsC2:
		t.state = tsText
		if c >= 0x80 && c <= 0x9f {
			return // a C1 control
		}
		t.buf = append(t.buf, 0xc2)
	}
	if t.cr {
		t.cr = false
		if c != '\n' {
			t.buf = append(t.buf, '\n')
		}
	}
	switch {
	case c == 0x1b:
		t.state = tsEsc
	case c == 0xc2:
		t.state = tsC2
	case c == '\r':
		t.cr = true
	case c == '\n' || c == '\t':
		t.buf = append(t.buf, c)
	case c < 0x20 || c == 0x7f:
		// other C0 controls (BEL, backspace, ...) are dropped
	default:
		t.buf = append(t.buf, c)
	}
}
