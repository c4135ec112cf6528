package sandbox

import (
	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/copy"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// decision is what `--mode auto` gives for a workspace on a machine whose
// probe said v: overlay shadows when they mount, else a copy of the
// workspace per hypothesis when one can be made, else in place. Open runs
// it and Explain prints it: the probe cannot say one thing and a run do
// another.
type decision struct {
	mode     engine.Mode     // overlay, copy or in place
	verdict  overlay.Verdict // the probe's
	copyBase string          // where copies go (copy mode)
	copyErr  error           // why no copy can be made here (in place)
}

func decideAuto(v overlay.Verdict, store snap.Store, ws string) decision {
	d := decision{mode: engine.ModeOverlay, verdict: v}
	if v.Mode == string(engine.ModeOverlay) {
		return d
	}
	d.copyBase, d.copyErr = copyBase(store, ws)
	if d.copyErr == nil {
		d.mode = engine.ModeCopy
	} else {
		d.mode = engine.ModeInplace
	}
	return d
}

// copyBase is where the copies of ws go, or why none can be made there.
func copyBase(store snap.Store, ws string) (string, error) {
	base := copy.Base(store.SandboxDir(), ws)
	if err := copy.Usable(base, ws); err != nil {
		return "", err
	}
	return base, nil
}

// probe is the overlay probe's verdict for ws's upper dirs, cached per
// boot and version (a remote node passes its binary's path as version).
func probe(store snap.Store, ws, version string) overlay.Verdict {
	return overlay.CachedProbe(Base(store, ws), store.ProbeCache(), version)
}
