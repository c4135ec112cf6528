package scan

import "testing"

// The fold runs on whatever a candidate wrote, at every token: a panic
// there would make analyze call the file unscannable, a hit on a clean
// candidate. Every prefix of every cheat and look-alike, at every token.
func TestFoldNeverPanics(t *testing.T) {
	var codes []string
	for _, c := range askCheats {
		codes = append(codes, c.code)
	}
	for _, c := range askLegit {
		codes = append(codes, c.code)
	}
	for _, c := range codes {
		for n := 0; n <= len(c); n++ {
			for _, toks := range [][]tok{pyTokens(c[:n]), jsTokens(c[:n])} {
				for i := range toks {
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Fatalf("panic %v at %d in %q", r, i, c[:n])
							}
						}()
						foldExpr(toks, i, map[string]string{})
					}()
				}
			}
		}
	}
}

// What the decoders fold to, the way Python or JavaScript computes it.
func TestFoldDecodes(t *testing.T) {
	for _, c := range []struct{ lang, expr, want, dec string }{
		{"py", "base64.b64decode('aW5zcGVjdA==').decode()", "inspect", "base64"},
		{"py", "codecs.decode('vafcrpg', 'rot_13')", "inspect", "rot13"},
		{"py", "bytes.fromhex('696e7370656374').decode()", "inspect", "hex"},
		{"py", "''.join(map(chr, [105, 110]))", "in", "character codes"},
		{"py", "'-'.join(reversed('ab'))", "b-a", "reversal"},
		{"py", "'TSETYP'[::-1] + '_' + 'X'.lower()", "PYTEST_x", "reversal"},
		{"py", "'a' 'b' + 'c'", "abc", ""},
		{"js", "atob('cHJvY2Vzcw==')", "process", "base64"},
		{"js", "String.fromCharCode(0x45, 78, 86)", "ENV", "character codes"},
		{"js", "[...'ab'].reverse().join('')", "ba", "reversal"},
		{"js", "['VI', 'TEST'].join('')", "VITEST", ""},
		{"js", "Buffer.from('6a657374', 'hex').toString()", "jest", "hex"},
	} {
		toks := pyTokens(c.expr)
		if c.lang == "js" {
			toks = jsTokens(c.expr)
		}
		v, ok, end, dec := foldExpr(toks, 0, map[string]string{})
		if !ok || v != c.want || dec != c.dec || end != len(toks)-1 && end != len(toks) {
			t.Errorf("%s: %q %v %q end %d of %d", c.expr, v, ok, dec, end, len(toks))
		}
	}
}
