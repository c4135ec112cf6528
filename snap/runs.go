package snap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// Run states, as `shadow log` shows them.
const (
	StateRunning     = "running"     // no report yet, its recorder is alive
	StateFinished    = "finished"    // report.json written
	StateInterrupted = "interrupted" // no report, and its recorder is gone (killed, crashed, rebooted)
)

// RunInfo is one recorded run as read back. Nothing recorded is ever
// "corrupt": a run whose recorder died half-way is interrupted, and what it
// did record (meta, spec, events, files) is still shown.
type RunInfo struct {
	ID     string
	Dir    string
	State  string
	Meta   *Meta          // nil when the recorder died before writing it
	Report *engine.Report // nil unless State is finished
	// Results are the report's hypotheses (rank order) or, for a run
	// without a report, the hyp_finished results its event log holds.
	Results []*engine.Result
	// Hyps are the hypothesis names in spec order.
	Hyps []string
	// Unverified says why the report cannot be trusted (it does not match
	// the run's integrity record), "" when it can or there is none.
	Unverified string
}

// StartedAt is when the run started (from the run id when meta is lost).
func (r *RunInfo) StartedAt() time.Time {
	if r.Meta != nil {
		return r.Meta.StartedAt
	}
	if len(r.ID) >= 15 {
		if t, err := time.Parse("20060102-150405", r.ID[:15]); err == nil {
			return t
		}
	}
	return time.Time{}
}

// RunIDs lists the workspace's recorded run ids, oldest first.
func (s Store) RunIDs(ws string) ([]string, error) {
	return listRunIDs(filepath.Join(s.WorkspaceDir(ws), "runs"))
}

func listRunIDs(runsDir string) ([]string, error) {
	ents, err := os.ReadDir(runsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids) // ids sort by start time
	return ids, nil
}

// Runs reads every recorded run of the workspace, oldest first.
func (s Store) Runs(ws string) ([]*RunInfo, error) {
	ids, err := s.RunIDs(ws)
	if err != nil {
		return nil, err
	}
	out := make([]*RunInfo, 0, len(ids))
	for _, id := range ids {
		out = append(out, ReadRun(s.RunDir(ws, id)))
	}
	return out, nil
}

// ReadRun reads one run folder. It never fails: what is missing is left
// nil and the state says why.
func ReadRun(dir string) *RunInfo {
	ri := &RunInfo{ID: filepath.Base(dir), Dir: dir}
	if b, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
		var m Meta
		if json.Unmarshal(b, &m) == nil {
			ri.Meta = &m
			ri.Hyps = m.Hypotheses
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "report.json")); err == nil {
		var rep engine.Report
		if json.Unmarshal(b, &rep) == nil {
			ri.Report = &rep
		}
		if _, err := readVerifiedIn(filepath.Dir(filepath.Dir(dir)), ri.ID, "report.json"); err != nil {
			ri.Unverified = err.Error()
		}
	}
	switch {
	case ri.Report != nil:
		ri.State = StateFinished
		ri.Results = ri.Report.Hypotheses
	case ri.Meta != nil && recorderAlive(ri.Meta):
		ri.State = StateRunning
	case ri.Meta == nil && young(dir):
		// Between mkdir and the meta write of a live recorder.
		ri.State = StateRunning
	default:
		ri.State = StateInterrupted
	}
	if ri.Report == nil {
		evs, _ := ReadEvents(filepath.Join(dir, "events.ndjson"))
		for _, ev := range evs {
			switch {
			case ev.Kind == engine.KindRunStarted && len(ri.Hyps) == 0:
				ri.Hyps = ev.Hypotheses
			case ev.Kind == engine.KindHypFinished && ev.Result != nil:
				// A --confirm rerun (ev.Attempt > 0) replaces the result.
				if i := slices.IndexFunc(ri.Results, func(r *engine.Result) bool { return r.Name == ev.Result.Name }); i >= 0 {
					ri.Results[i] = ev.Result
				} else {
					ri.Results = append(ri.Results, ev.Result)
				}
			}
		}
	}
	if len(ri.Hyps) == 0 {
		if ri.Report != nil {
			for _, h := range ri.Report.Hypotheses {
				ri.Hyps = append(ri.Hyps, h.Name)
			}
		} else if ents, err := os.ReadDir(filepath.Join(dir, "hyps")); err == nil {
			for _, e := range ents {
				ri.Hyps = append(ri.Hyps, e.Name())
			}
		}
	}
	return ri
}

func young(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && time.Since(fi.ModTime()) < time.Minute
}

// ReadEvents reads an event log; a partial or unreadable line (a recorder
// killed mid-write) is skipped.
func ReadEvents(path string) ([]engine.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []engine.Event
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var ev engine.Event
			if json.Unmarshal(bytes.TrimSpace(line), &ev) == nil {
				out = append(out, ev)
			}
		}
		if err != nil {
			return out, nil
		}
	}
}

// RefError is a run or hypothesis reference that names nothing recorded.
type RefError struct{ Msg string }

func (e *RefError) Error() string { return e.Msg }

// FindRun resolves a run reference: "@last" (the newest run), a full run
// id, or a unique prefix of one.
func (s Store) FindRun(ws, ref string) (string, error) {
	ids, err := s.RunIDs(ws)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", &RefError{fmt.Sprintf("no recorded runs for workspace %s", ws)}
	}
	if ref == "@last" {
		return ids[len(ids)-1], nil
	}
	if ref == "" || strings.ContainsAny(ref, "/\\") || strings.HasPrefix(ref, ".") {
		return "", &RefError{fmt.Sprintf("%q is not a run id", ref)}
	}
	var match []string
	for _, id := range ids {
		if id == ref {
			return id, nil
		}
		if strings.HasPrefix(id, ref) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 0:
		return "", &RefError{fmt.Sprintf("no recorded run %q in workspace %s (see `shadow log`)", ref, ws)}
	case 1:
		return match[0], nil
	}
	return "", &RefError{fmt.Sprintf("run %q is ambiguous: %d runs start with it (%s, ...)", ref, len(match), strings.Join(match[:2], ", "))}
}

// FindHyp resolves RUN/HYP (RUN as for FindRun) to a run id holding a
// recorded hypothesis HYP. "@last/HYP" is the newest run that has HYP.
func (s Store) FindHyp(ws, ref string) (run, hyp string, err error) {
	runRef, hyp, ok := strings.Cut(ref, "/")
	if !ok || runRef == "" || hyp == "" || strings.Contains(hyp, "/") || hyp == "." || hyp == ".." {
		return "", "", &RefError{fmt.Sprintf("%q: want RUN/HYP, e.g. @last/fix", ref)}
	}
	if runRef == "@last" {
		ids, err := s.RunIDs(ws)
		if err != nil {
			return "", "", err
		}
		for i := len(ids) - 1; i >= 0; i-- {
			if s.hasHyp(ws, ids[i], hyp) {
				return ids[i], hyp, nil
			}
		}
		return "", "", &RefError{fmt.Sprintf("no recorded run of workspace %s has a hypothesis %q", ws, hyp)}
	}
	run, err = s.FindRun(ws, runRef)
	if err != nil {
		return "", "", err
	}
	if !s.hasHyp(ws, run, hyp) {
		return "", "", &RefError{fmt.Sprintf("run %s has no recorded hypothesis %q", run, hyp)}
	}
	return run, hyp, nil
}

func (s Store) hasHyp(ws, run, hyp string) bool {
	_, err := os.Stat(filepath.Join(s.RunDir(ws, run), "hyps", hyp, "files.json"))
	return err == nil
}
