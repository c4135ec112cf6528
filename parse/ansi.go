package parse

import "bytes"

// stripANSI removes terminal escape sequences from one line, so coloured
// output (pytest --color=yes, FORCE_COLOR=1 for jest/vitest, cargo --color
// always) matches the same patterns as plain output. It handles CSI
// (ESC [ ... final), OSC (ESC ] ... BEL or ESC \, used for hyperlinks), and
// the short two-byte ESC sequences. A line without ESC is returned as is, so
// plain output costs one byte scan.
func stripANSI(b []byte) []byte {
	i := bytes.IndexByte(b, 0x1b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c != 0x1b {
			out = append(out, c)
			i++
			continue
		}
		i++ // skip ESC
		if i >= len(b) {
			break
		}
		switch b[i] {
		case '[': // CSI: parameters 0x30-0x3F, intermediates 0x20-0x2F, final 0x40-0x7E
			i++
			for i < len(b) && b[i] >= 0x20 && b[i] <= 0x3f {
				i++
			}
			if i < len(b) && b[i] >= 0x40 && b[i] <= 0x7e {
				i++
			}
		case ']': // OSC: up to BEL or ST (ESC \)
			i++
			for i < len(b) {
				if b[i] == 0x07 {
					i++
					break
				}
				if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
					i += 2
					break
				}
				i++
			}
		default: // nF (intermediates then final) or a two-byte Fe/Fp/Fs sequence
			for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
				i++
			}
			if i < len(b) {
				i++
			}
		}
	}
	return out
}
