package sandbox

import (
	"fmt"
	"os"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// Explanation is the probe's answer for people and agents: the mode an
// auto run of the workspace gets here, why, and the fix when it is not
// overlay. Its JSON is the probe's verdict (`shadow probe --json`, the
// structured content of shadow_probe), its Mode the mode a run gets.
type Explanation struct {
	overlay.Verdict
	// Copies is where copy mode makes its copies, when the run gets copy
	// mode; CopyErr is why no copy can be made, when it gets in-place mode
	// instead.
	Copies  string `json:"-"`
	CopyErr error  `json:"-"`
	// Landlock: what seals copy and in-place modes' commands here (seal.go).
	Landlock LandlockStatus `json:"landlock"`
	// Limits: how overlay mode caps each hypothesis's processes and memory
	// here (overlay.ProbeLimits; limits.go).
	Limits overlay.LimitMechanisms `json:"limits"`
}

// protectionCopy says what copy mode guards against.
const protectionCopy = "accidents only: each hypothesis runs as you, with no namespace, in its own copy of the workspace; the checkout is never written by shadow, but a hostile command can reach it by its path"

// Explain probes (afresh when fresh, else from the cache runs use) and
// says what an auto run of workspace ws gets from it: the same decision
// Open makes. version keys the probe cache.
func Explain(store snap.Store, ws, version string, fresh bool) Explanation {
	if fresh {
		_ = os.Remove(store.ProbeCache())
	}
	return explain(decideAuto(probe(store, ws, version), store, ws))
}

func explain(d decision) Explanation {
	e := Explanation{Verdict: d.verdict}
	switch d.mode {
	case engine.ModeCopy:
		e.Mode, e.Protection, e.Copies = string(engine.ModeCopy), protectionCopy, d.copyBase
	case engine.ModeInplace:
		e.CopyErr = d.copyErr
	}
	sealExplain(&e, d.mode)
	e.Limits = overlay.ProbeLimits()
	return e
}

// Text is the explanation as `shadow probe` and shadow_probe print it:
// the mode, why, and for a failed probe the step that failed, what runs
// do instead and the fix.
func (e Explanation) Text() string {
	v := e.Verdict
	var b strings.Builder
	fmt.Fprintf(&b, "mode: %s\n", v.Mode)
	fmt.Fprintf(&b, "why:  %s\n", v.Reason)
	if v.Protection != "" {
		fmt.Fprintf(&b, "protects against: %s\n", v.Protection)
	}
	b.WriteString(e.Landlock.line())
	if v.Mode == string(engine.ModeOverlay) {
		fmt.Fprintf(&b, "upper dirs: %s\n", v.Upper)
		b.WriteString(limitsLine(e.Limits))
		if !v.Proc {
			b.WriteString("note: a fresh /proc could not be mounted; commands see the outer process list\n")
		}
	}
	if v.Layer != "" {
		fmt.Fprintf(&b, "blocked by: %s\n", v.Layer)
	}
	if v.Mode != string(engine.ModeOverlay) && v.Stage != "" {
		fmt.Fprintf(&b, "step: %s", v.Stage)
		if v.Errno != "" {
			fmt.Fprintf(&b, " (%s)", v.Errno)
		}
		b.WriteString("\n")
	}
	switch engine.Mode(v.Mode) {
	case engine.ModeCopy:
		fmt.Fprintf(&b, "so:   --mode auto runs each hypothesis in its own copy of the workspace, in parallel (copies in %s)\n", e.Copies)
	case engine.ModeInplace:
		b.WriteString("so:   --mode auto runs in place: one hypothesis at a time in the checkout itself, every\n")
		b.WriteString("      original journaled (fsynced) to the state dir first and restored after each run;\n")
		b.WriteString("      an interrupted run is restored by the next shadow on that workspace, or by `shadow gc`\n")
		if e.CopyErr != nil {
			fmt.Fprintf(&b, "      (no copy of the workspace can be made here: %v)\n", e.CopyErr)
		}
	}
	if v.Fix != "" {
		fmt.Fprintf(&b, "fix:  %s\n", strings.ReplaceAll(v.Fix, "\n", "\n      "))
	}
	return b.String()
}
