package judge

import (
	"bytes"
	"strings"

	"github.com/shadow-dev/shadow/parse"
)

// The live counts (tests events, the TUI) come from the parser while the
// command runs, before strip can read names: liveParser takes off the
// canary failures the output has named so far, so a fix does not show
// "1 failed" for as long as it runs. Final is the parser's own; strip
// makes the result's counts.

type liveParser struct {
	TestParser
	token string
	line  []byte
	seen  map[string]bool // canary failure lines seen
}

// wrapLive returns parser with the canary's named failures taken off its
// live counts (parser itself when there is no canary).
func (p *canaryPlan) wrapLive(parser TestParser) TestParser {
	if p == nil || parser == nil {
		return parser
	}
	return &liveParser{TestParser: parser, token: p.token, seen: map[string]bool{}}
}

func (l *liveParser) Write(b []byte) (int, error) {
	n, err := l.TestParser.Write(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(l.line) < 4096 {
				l.line = append(l.line, b...)
			}
			break
		}
		if len(l.line) < 4096 {
			l.line = append(l.line, b[:i]...)
		}
		l.scan(string(l.line))
		l.line = l.line[:0]
		b = b[i+1:]
	}
	return n, err
}

// scan counts a line that reports the canary failing: go's "--- FAIL:",
// pytest's "FAILED", unittest's "FAIL:", cargo's "... FAILED", jest's and
// vitest's "✕"/"×"/"FAIL".
func (l *liveParser) scan(s string) {
	if !strings.Contains(strings.ToLower(s), l.token) {
		return
	}
	if strings.Contains(s, "FAIL") || strings.Contains(s, "✕") || strings.Contains(s, "×") {
		key := strings.TrimSpace(s)
		for _, p := range []string{"--- FAIL: ", "FAILED ", "FAIL: ", "FAIL ", "✕ ", "× "} {
			key = strings.TrimPrefix(key, p)
		}
		// Up to the token: the same test's lines (pytest's progress and
		// summary, vitest's × and FAIL) give the same key.
		if i := strings.Index(strings.ToLower(key), l.token); i >= 0 {
			key = key[:i+len(l.token)]
		}
		l.seen[key] = true
	}
}

func (l *liveParser) Live() *parse.Summary {
	s := l.TestParser.Live()
	if s == nil || len(l.seen) == 0 || s.Unit == "package" {
		return s
	}
	c := *s
	c.Failed = max(0, c.Failed-len(l.seen))
	return &c
}
