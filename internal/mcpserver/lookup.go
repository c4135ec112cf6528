package mcpserver

// Reading recorded runs for shadow_log and shadow_show, over the snap
// package's listing (snap.Store.RunIDs, FindRun, FindHyp, ReadRun).

import (
	"bytes"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// mcpLogWindow bounds how much of a hypothesis's log shadow_show reads to
// find its last lines.
const mcpLogWindow = 4 << 20

// findRecord resolves ref (RUN, or RUN/HYP when hyp) to a run read back.
// A RUN/HYP whose hypothesis finished but whose files were not recorded is
// still found, as `shadow show` does.
func findRecord(store snap.Store, ws, ref string, hyp bool) (*snap.RunInfo, error) {
	if !hyp {
		id, err := store.FindRun(ws, ref)
		if err != nil {
			return nil, err
		}
		return snap.ReadRun(store.RunDir(ws, id)), nil
	}
	run, _, err := store.FindHyp(ws, ref)
	if err != nil {
		runRef, name, _ := bytes.Cut([]byte(ref), []byte("/"))
		if string(runRef) != "@last" {
			if id, rerr := store.FindRun(ws, string(runRef)); rerr == nil {
				if ri := snap.ReadRun(store.RunDir(ws, id)); resultNamed(ri, string(name)) != nil {
					return ri, nil
				}
			}
		}
		return nil, err
	}
	return snap.ReadRun(store.RunDir(ws, run)), nil
}

func resultNamed(r *snap.RunInfo, name string) *engine.Result {
	for _, h := range r.Results {
		if h.Name == name {
			return h
		}
	}
	return nil
}
