package judge

import (
	"bytes"
	"regexp"
	"strings"
)

// The judge reads output the way the core's tail does (engine/tail.go):
// colour and cursor sequences are not part of a line, and a line that
// never ends is cut at partialCap.

// partialCap bounds an unfinished line kept while output streams.
const partialCap = 64 << 10

var ansiSeq = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)

// stripANSI removes colour and cursor sequences.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiSeq.ReplaceAllString(s, "")
}

func indexByte(p []byte, c byte) int { return bytes.IndexByte(p, c) }
