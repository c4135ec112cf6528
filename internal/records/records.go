// Package records reads recorded runs the same way for every front end:
// the CLI's log and show, and the MCP server's shadow_log and shadow_show.
// It resolves references, summarises runs and words results and probe
// verdicts once, over the snap store's listing (RunIDs, FindRun, FindHyp,
// ReadRun).
package records

import (
	"fmt"
	"strings"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/snap"
)

// Find resolves ref (RUN, or RUN/HYP) to the run read back and the
// hypothesis's name ("" for a RUN). RUN is a run id, a unique prefix of
// one, or @last. A RUN/HYP whose hypothesis finished but whose files were
// not recorded is still found. A reference that names nothing is a
// *snap.RefError.
func Find(store snap.Store, ws, ref string) (*snap.RunInfo, string, error) {
	runRef, name, isHyp := strings.Cut(ref, "/")
	if !isHyp {
		id, err := store.FindRun(ws, ref)
		if err != nil {
			return nil, "", err
		}
		return snap.ReadRun(store.RunDir(ws, id)), "", nil
	}
	run, hyp, err := store.FindHyp(ws, ref)
	if err != nil {
		// A run recorded before its hypotheses' files were: still show
		// what it has.
		if runRef != "@last" {
			if id, rerr := store.FindRun(ws, runRef); rerr == nil {
				if ri := snap.ReadRun(store.RunDir(ws, id)); Result(ri, name) != nil {
					return ri, name, nil
				}
			}
		}
		return nil, "", err
	}
	return snap.ReadRun(store.RunDir(ws, run)), hyp, nil
}

// Result is the finished hypothesis name of a run, or nil.
func Result(ri *snap.RunInfo, name string) *engine.Result {
	for _, r := range ri.Results {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Quote shows a command the way a shell would need it.
func Quote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}!#~") {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// ResultLine is a finished hypothesis in one line: "failed in 1.2s (3
// passed, 1 failed)".
func ResultLine(r *engine.Result) string {
	if r == nil {
		return "finished"
	}
	s := fmt.Sprintf("%s in %.1fs", r.Status, float64(r.DurationMS)/1000)
	if r.Tests != nil {
		s += fmt.Sprintf(" (%d passed, %d failed)", r.Tests.Passed, r.Tests.Failed)
	}
	if r.Disqualified != nil { // as the text report marks it (docs/report.md)
		s += " [disqualified: " + *r.Disqualified + "]"
	}
	if r.Runs > 1 {
		s += fmt.Sprintf(" [passed %d of %d runs]", r.Passes, r.Runs)
	}
	return s
}
