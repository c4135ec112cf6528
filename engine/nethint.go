package engine

import (
	"github.com/shadow-dev/shadow/engine/judge"

	"regexp"
	"strings"
)

// A test that fails on a localhost port usually fails for the network
// shadow gave it, not for the candidate's code, and the reason line should
// say so in one more clause:
//
//   - EADDRINUSE under --net host: the hypotheses share the host's
//     network, so two binding one fixed port collide (the default private
//     network gives each its own localhost);
//   - ECONNREFUSED on localhost under the default private network: the
//     service the suite expects (a database on the host) is not in the
//     hypothesis's own network unless --host-port forwards it.
//
// Copy and in-place modes always share the host's network; Net is "" or
// "host" there, and the EADDRINUSE hint fits them too.

var (
	addrInUse   = regexp.MustCompile(`(?i)EADDRINUSE|address already in use`)
	connRefused = regexp.MustCompile(`(?i)ECONNREFUSED|connection refused`)
	// A localhost address with its port: 127.0.0.1:5432, [::1]:8080,
	// localhost:6379, 0.0.0.0:3000, ('127.0.0.1', 8080) (Python), "localhost"
	// (::1), port 5432 (libpq).
	localPort = regexp.MustCompile(`(?i)(?:127\.0\.0\.1|localhost|\[?::1\]?|0\.0\.0\.0)['"\)]*(?:,?\s*\(?[^)\s]*\)?,?\s*port\s*|:|,\s*)(\d{2,5})`)
)

// NetHint is the clause to add to a failing hypothesis's reason when its
// output names a localhost port that was taken or refused, "" otherwise.
// net is the run's --net ("" for the sandbox's default); mode its sandbox
// mode.
func NetHint(output, net string, mode Mode) string {
	shared := net == "host" || mode != ModeOverlay && mode != ModeRemote
	for _, line := range strings.Split(output, "\n") {
		m := localPort.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch {
		case shared && addrInUse.MatchString(line):
			if mode == ModeOverlay || mode == ModeRemote {
				return "hint: --net host shares the host's network, so hypotheses binding port " + m[1] + " collide; without it each has its own localhost"
			}
			return "hint: " + string(mode) + " mode shares the host's network, so hypotheses binding port " + m[1] + " collide; overlay mode gives each its own localhost"
		case !shared && net != "isolated" && connRefused.MatchString(line):
			return "hint: each hypothesis has its own localhost; a host service on port " + m[1] + " is reachable with --host-port " + m[1]
		}
	}
	return ""
}

// addNetHint appends NetHint's clause to r.Reason (run.go calls it after
// setReason).
func addNetHint(r *Result, net string, mode Mode) {
	if r.Reason == nil || r.Status == StatusPassed {
		return
	}
	h := NetHint(r.OutputTail, net, mode)
	if h == "" || strings.Contains(*r.Reason, "hint:") {
		return
	}
	// The hint is kept whole; the reason before it gives way.
	why := *r.Reason
	if room := judge.ReasonMax - len(h) - 3; len(why) > room && room > 0 {
		cut := room
		for cut > 0 && why[cut]&0xc0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		why = why[:cut] + "…"
	}
	why += " (" + h + ")"
	r.Reason = &why
}
