package records

import (
	"fmt"
	"time"

	"github.com/shadow-dev/shadow/snap"
)

// Summary is one run in `shadow log --json` (schema shadow.log/v1): what
// the record says of it, whether or not it finished.
type Summary struct {
	Run        string         `json:"run"`
	StartedAt  time.Time      `json:"started_at"`
	Command    []string       `json:"command"`
	Subdir     string         `json:"subdir"`
	Mode       string         `json:"mode,omitempty"`
	State      string         `json:"state"` // finished, running, interrupted
	Cancelled  bool           `json:"cancelled"`
	Hypotheses []string       `json:"hypotheses"`
	Winner     *string        `json:"winner"`
	Statuses   map[string]int `json:"statuses"` // hypotheses by status; unfinished ones are absent
	Stale      bool           `json:"stale"`
	StalePaths []string       `json:"stale_paths"`
	Frozen     bool           `json:"frozen"`
	DurationMS int64          `json:"duration_ms"`
	// Error is why the run stopped before every hypothesis had run (every
	// remote node failed), as the report says; absent otherwise.
	Error string `json:"error,omitempty"`
	// MergedFrom: the record is `shadow merge --apply` of the shards with
	// these indexes; absent for a run.
	MergedFrom []int `json:"merged_from,omitempty"`
}

// CommandWord is how a record's command is shown in one line: a merge
// says it is one ("merge of 3 shards: go test ./...").
func (e Summary) CommandWord() string {
	if len(e.MergedFrom) > 0 {
		return fmt.Sprintf("merge of %d shards: %s", len(e.MergedFrom), Quote(e.Command))
	}
	return Quote(e.Command)
}

// Summarize reads a run's summary from its record: the report's fields
// where it finished, the meta's otherwise.
func Summarize(ri *snap.RunInfo) Summary {
	e := Summary{Run: ri.ID, StartedAt: ri.StartedAt(), State: ri.State, Hypotheses: ri.Hyps,
		Statuses: map[string]int{}, StalePaths: []string{}, Command: []string{}}
	if e.Hypotheses == nil {
		e.Hypotheses = []string{}
	}
	if m := ri.Meta; m != nil {
		e.Command, e.Subdir, e.Frozen = m.Command, m.Subdir, m.Freeze
		e.MergedFrom = m.MergedFrom
	}
	if r := ri.Report; r != nil {
		e.Mode, e.Cancelled, e.Winner, e.Stale, e.DurationMS, e.Frozen = r.Mode, r.Cancelled, r.Winner, r.Stale, r.DurationMS, r.Frozen || e.Frozen
		e.Error = r.Error
		if r.StalePaths != nil {
			e.StalePaths = r.StalePaths
		}
	}
	if e.Command == nil {
		e.Command = []string{}
	}
	for _, res := range ri.Results {
		e.Statuses[res.Status]++
	}
	return e
}

// The run-state words every front end uses (shadow log, shadow show,
// shadow_log, the TUI's timeline): one word per state, written once here.
const (
	WordDone        = "done"        // finished: every hypothesis ran
	WordCancelled   = "cancelled"   // interrupted by Ctrl-C or SIGTERM, report written
	WordStopped     = "stopped"     // it could not run every hypothesis (every remote node failed)
	WordRunning     = "running"     // its recorder is alive
	WordInterrupted = "interrupted" // its recorder died before the report (killed, crashed, rebooted)
)

// RunWord is a run's state in one word: state is the record's
// (snap.StateFinished, StateRunning, StateInterrupted), cancelled and
// stopped the report's (Cancelled, an Error).
func RunWord(state string, cancelled, stopped bool) string {
	switch {
	case state == snap.StateRunning:
		return WordRunning
	case state == snap.StateInterrupted:
		return WordInterrupted
	case stopped:
		return WordStopped
	case cancelled:
		return WordCancelled
	case state == snap.StateFinished:
		return WordDone
	}
	return state
}

// StateWord is a run's state for people: RunWord's, with ", stale" and
// ", frozen" added.
func (e Summary) StateWord() string {
	s := RunWord(e.State, e.Cancelled, e.Error != "")
	if e.Stale {
		s += ", stale"
	}
	if e.Frozen {
		s += ", frozen"
	}
	return s
}
