package overlay

import "time"

// SweepMinAge: a sandbox dir younger than this may belong to a run that is
// still preparing it (before its overlay is mounted, nothing else marks it
// as live), so Sweep leaves it for next time.
var SweepMinAge = 30 * time.Second

// Swept is one leftover sandbox dir (a hypothesis's or a probe's upper and
// work dirs) Sweep looked at: removed, kept (Kept says why), or not
// removable (Err).
type Swept struct {
	Dir  string
	Kept string
	Err  error
}

// The names of sandbox dirs (private to overlay: Sweep knows them, no
// other package does): hypPrefix for a hypothesis's, probePrefix for a
// probe's.
const (
	hypPrefix   = "hyp-"
	probePrefix = "probe-"
)
