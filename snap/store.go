// Package snap keeps shadow's state outside the checkout: one directory per
// workspace under $XDG_STATE_HOME/shadow (default ~/.local/state/shadow),
// one per run, holding the spec, the event log appended live, the report
// and each hypothesis's output.
package snap

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/shadow-dev/shadow/internal/fsutil"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// Store is the state root.
type Store struct{ Root string }

// DefaultStore is the store in shadow's state dir, the one place the state
// dir is looked up: every command, the MCP server, a run's plan, a merge's
// apply and a remote node's side open it here, so they agree on where the
// records, the probe cache and the sandboxes are.
func DefaultStore() (Store, error) {
	root, err := defaultRoot()
	return Store{Root: root}, err
}

// defaultRoot is $XDG_STATE_HOME/shadow, else ~/.local/state/shadow.
func defaultRoot() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "shadow"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("cannot find a state directory: set HOME or XDG_STATE_HOME")
	}
	return filepath.Join(home, ".local", "state", "shadow"), nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// WorkspaceDir is the folder of one workspace: its base name for people,
// a hash of its absolute path for uniqueness.
func (s Store) WorkspaceDir(workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	name := unsafeChars.ReplaceAllString(filepath.Base(workspace), "_")
	return filepath.Join(s.Root, "workspaces", name+"-"+hex.EncodeToString(sum[:6]))
}

// SandboxDir is where overlay upper and work dirs are made.
func (s Store) SandboxDir() string { return filepath.Join(s.Root, "sandboxes") }

// ProbeCache is the file holding the cached probe verdict.
func (s Store) ProbeCache() string { return filepath.Join(s.Root, "probe.json") }

// NewRunID returns a run id that sorts by start time (to the millisecond),
// e.g. 20240131-235959.123-a1b2c3.
func NewRunID(now time.Time) string {
	var b [3]byte
	f, err := os.Open("/dev/urandom")
	if err == nil {
		_, _ = f.Read(b[:])
		f.Close()
	}
	return now.UTC().Format("20060102-150405.000") + "-" + hex.EncodeToString(b[:])
}

// Run is one recorded run.
type Run struct {
	ID   string
	Dir  string
	ev   *os.File
	objs Objects

	key []byte // the workspace's integrity key (integrity.go)
	// KeyReplaced: the key was found damaged and replaced when the run
	// started (LoadKeyReplacing); where the old one went.
	KeyReplaced string
	mu          sync.Mutex        // guards records
	records     map[string][]byte // records written, by path in Dir: what integrity.json vouches for
	evOut       map[string]int64  // output event bytes recorded per hypothesis (AppendEvent)
	// MaxEventOutput bounds the live output each hypothesis's events may
	// carry into events.ndjson (0: DefaultMaxOutput); the output log
	// holds the rest, itself capped.
	MaxEventOutput int64
}

// Meta is the run's first record, written before anything runs.
type Meta struct {
	Run        string    `json:"run"`
	Workspace  string    `json:"workspace"`
	Subdir     string    `json:"subdir"`
	Command    []string  `json:"command"`
	StartedAt  time.Time `json:"started_at"`
	PID        int       `json:"pid"`
	Hypotheses []string  `json:"hypotheses,omitempty"`
	Freeze     bool      `json:"freeze,omitempty"`
	// MergedFrom: the record is `shadow merge --apply` of the shards with
	// these indexes, not a run of this machine's.
	MergedFrom []int `json:"merged_from,omitempty"`
	// PIDStart (the process's start time in clock ticks after boot) and
	// Boot (the kernel's boot id) tell a live recorder from a dead one whose
	// PID was reused, or one from before a reboot. NewRun fills them in.
	PIDStart uint64 `json:"pid_start,omitempty"`
	Boot     string `json:"boot,omitempty"`
}

// NewRun creates the run's folder with its spec and metadata, and opens its
// event log for appending. Two processes that draw the same run id (same
// second, same random suffix) cannot share a folder: the second one gets
// ErrExist from mkdir and the caller picks another id.
func (s Store) NewRun(meta Meta, spec []byte) (*Run, error) {
	runs := filepath.Join(s.WorkspaceDir(meta.Workspace), "runs")
	if err := os.MkdirAll(runs, 0o700); err != nil {
		return nil, fmt.Errorf("record run in %s: %w (set XDG_STATE_HOME, or pass --no-record)", runs, err)
	}
	key, replaced, err := LoadKeyReplacing(s.WorkspaceDir(meta.Workspace))
	if err != nil {
		return nil, fmt.Errorf("record run: %w", err)
	}
	_ = s.writeWorkspaceInfo(meta.Workspace)
	dir := filepath.Join(runs, meta.Run)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("record run in %s: %w", dir, err)
	}
	if meta.PID == 0 {
		meta.PID = os.Getpid()
	}
	if meta.PIDStart == 0 {
		meta.PIDStart = pidStart(meta.PID)
	}
	if meta.Boot == "" {
		meta.Boot = bootID()
	}
	if err := WriteFileAtomic(filepath.Join(dir, "spec.json"), spec); err != nil {
		return nil, err
	}
	mb, _ := json.MarshalIndent(meta, "", "  ")
	if err := WriteFileAtomic(filepath.Join(dir, "meta.json"), mb); err != nil {
		return nil, err
	}
	ev, err := os.OpenFile(filepath.Join(dir, "events.ndjson"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &Run{ID: meta.Run, Dir: dir, ev: ev, objs: s.Objects(meta.Workspace), key: key, KeyReplaced: replaced}, nil
}

// NewRunRetry is NewRun with a fresh run id (from NewRunID) on the
// unlikely collision of two ids; it returns the run with the id used.
func (s Store) NewRunRetry(meta Meta, spec []byte) (*Run, error) {
	for i := 0; ; i++ {
		r, err := s.NewRun(meta, spec)
		if err == nil || !errors.Is(err, os.ErrExist) || i == 5 {
			return r, err
		}
		meta.Run = NewRunID(time.Now())
	}
}

// workspaceInfo is workspace.json in a workspace's folder: which checkout
// the folder records (its name is only a hash).
type workspaceInfo struct {
	Workspace string `json:"workspace"`
}

func (s Store) writeWorkspaceInfo(ws string) error {
	p := filepath.Join(s.WorkspaceDir(ws), "workspace.json")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	b, _ := json.Marshal(workspaceInfo{Workspace: ws})
	return WriteFileAtomic(p, b)
}

// AppendEvent appends one event to the run's log. Each line is written
// with one write(2) on an O_APPEND file, so a follower never sees half of
// a line from a live writer unless it crashed mid-write.
//
// The live output an event log carries is bounded per hypothesis
// (MaxEventOutput): past it, one notice stands for the rest, which the
// hypothesis's output log (itself capped) holds.
func (r *Run) AppendEvent(v any) error {
	if ev, ok := v.(engine.Event); ok && ev.Kind == engine.KindOutput {
		var keep bool
		if ev, keep = r.boundOutput(ev); !keep {
			return nil
		}
		v = ev
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = r.ev.Write(append(b, '\n'))
	return err
}

// Finish writes the report, seals the run's integrity record and closes
// the event log. It is called after every command of the run ended: a
// record changed during the run is written back as the run made it, and
// reported as a *TamperedError (the report is written all the same).
func (r *Run) Finish(report any) error {
	defer r.ev.Close()
	b, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return err
	}
	if err := r.writeRecord("report.json", b); err != nil {
		return err
	}
	repaired, err := r.writeIntegrity(true)
	if err != nil {
		return fmt.Errorf("seal the run's integrity record: %w", err)
	}
	if len(repaired) > 0 {
		return &TamperedError{Run: r.ID, Repaired: repaired}
	}
	return nil
}

// RunDir is the folder of run id in workspace ws's records.
func (s Store) RunDir(ws, id string) string {
	return filepath.Join(s.WorkspaceDir(ws), "runs", id)
}

// WriteFileAtomic writes data to a temporary file in the same directory,
// syncs it and renames it over path: readers see all or nothing.
func WriteFileAtomic(path string, data []byte) error {
	return fsutil.WriteFileAtomic(path, data, 0o600, true)
}

// DefaultMaxEventOutput is the live output one hypothesis's events may
// carry into a run's event log.
const DefaultMaxEventOutput int64 = 4 << 20

// boundOutput trims an output event to what is left of its hypothesis's
// budget; false when nothing is.
func (r *Run) boundOutput(ev engine.Event) (engine.Event, bool) {
	max := r.MaxEventOutput
	if max <= 0 {
		max = DefaultMaxEventOutput
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.evOut == nil {
		r.evOut = map[string]int64{}
	}
	used := r.evOut[ev.Hyp]
	if used > max {
		return ev, false
	}
	if used+int64(len(ev.Text)) > max {
		ev.Text = ev.Text[:max-used] + fmt.Sprintf("\n[shadow: the event log records %s of live output per hypothesis; the rest is in its output log]\n", engine.FormatSize(max))
		r.evOut[ev.Hyp] = max + 1
		return ev, true
	}
	r.evOut[ev.Hyp] = used + int64(len(ev.Text))
	return ev, true
}
