package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/sandbox/copy"
	"github.com/shadow-dev/shadow/internal/sandbox/freeze"
	"github.com/shadow-dev/shadow/internal/sandbox/warm"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// Swept is one thing Sweep did or left: Line says it for people (`shadow
// gc` prints it on stdout); Err, when set, is a leftover it could not
// remove or restore (printed on stderr, and gc fails).
type Swept struct {
	Line string
	Err  error
}

// Sweep removes what crashed runs of every mode left behind, and says
// what it did: in-place journals are replayed (the checkout restored),
// overlay upper/work dirs and copy-mode copies no live run uses are
// removed, so are --no-record runs' logs whose process is gone, warm
// layers of workspaces gone or over warmMax bytes in all, and --freeze
// copies of ended runs. What is still in use is kept and said so. Run
// records are not a mode's: `shadow gc` prunes them itself.
func Sweep(store snap.Store, warmMax int64) (out []Swept, workspaces int) {
	say := func(format string, a ...any) { out = append(out, Swept{Line: fmt.Sprintf(format, a...)}) }
	fail := func(err error) { out = append(out, Swept{Err: err}) }

	// 1. In-place journals: a run killed with a hypothesis in the checkout.
	wsDirs, _ := filepath.Glob(filepath.Join(store.Root, "workspaces", "*"))
	for _, d := range wsDirs {
		if inplace.HasJournal(d) {
			out = append(out, sweepJournal(d)...)
		}
	}
	// 2. Overlay upper/work dirs of crashed runs (and probes).
	for _, sw := range overlay.Sweep(store.SandboxDir(), overlay.TmpSandboxes()) {
		switch {
		case sw.Kept != "":
			say("kept %s: %s", sw.Dir, sw.Kept)
		case sw.Err != nil:
			fail(fmt.Errorf("remove %s: %v", sw.Dir, sw.Err))
		default:
			say("removed %s", sw.Dir)
		}
	}
	// 3. Copy-mode copies of crashed runs.
	out = append(out, sweepCopies(store, wsDirs)...)
	// 4. The log dirs of --no-record runs whose process is gone.
	swept, errs := snap.SweepScratch([]string{overlay.TmpRoot(), os.TempDir()}, fsutil.RemoveTree)
	for _, d := range swept {
		say("removed %s (a --no-record run's logs; its process is gone)", d)
	}
	for _, err := range errs {
		fail(err)
	}
	// 5. Warm layers: of workspaces gone, and over the size cap.
	removed, werrs := warm.GC(warm.Dir(store.Root), warmMax)
	for _, r := range removed {
		say("removed the warm layer of %s (%s, %d bytes): %s", r.Workspace, r.Dir, r.Bytes, r.Why)
	}
	for _, err := range werrs {
		fail(fmt.Errorf("warm layers: %w", err))
	}
	// The home layers (the caches builds write outside the workspace), by
	// the same rules and a cap of their own.
	removed, werrs = warm.GC(warm.HomeDir(store.Root), warmMax)
	for _, r := range removed {
		say("removed the home layer of %s (%s, %d bytes): %s", r.Workspace, r.Dir, r.Bytes, r.Why)
	}
	for _, err := range werrs {
		fail(fmt.Errorf("home layers: %w", err))
	}
	// 6. --freeze copies of runs whose process is gone.
	for _, base := range []string{store.SandboxDir(), overlay.TmpSandboxes()} {
		if n := freeze.CleanFrozen(base); n > 0 {
			say("removed %d --freeze copy(ies) of ended runs in %s", n, base)
		}
	}
	// 7. Copy mode's per-slot caches, which older shadows kept.
	out = append(out, sweepSlotCaches(store)...)
	return out, len(wsDirs)
}

// sweepJournal replays one workspace's journal unless a live run holds
// the workspace (then the journal is that run's, not a leftover).
func sweepJournal(stateDir string) (out []Swept) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // one try: never wait for a live run
	release, err := inplace.Lock(ctx, filepath.Join(stateDir, inplace.LockName), true, nil)
	if err != nil {
		return []Swept{{Line: fmt.Sprintf("kept the journal in %s: a shadow run is using that workspace", stateDir)}}
	}
	defer release()
	r, err := inplace.Recover(stateDir, "")
	if r.Journal != nil {
		out = append(out, Swept{Line: fmt.Sprintf("%s: %s", r.Journal.Workspace, r.Describe())})
	} else if r.Discarded {
		out = append(out, Swept{Line: fmt.Sprintf("removed an unfinished journal in %s (the checkout had not been touched)", stateDir)})
	}
	for _, w := range r.Warnings {
		out = append(out, Swept{Line: "  " + w})
	}
	if err != nil {
		out = append(out, Swept{Err: err})
	}
	return out
}

// sweepCopies removes the copy-mode copies of crashed runs: in the state
// dir, in $TMPDIR, and beside each workspace shadow has recorded (where
// copies go when neither is on the workspace's filesystem). A copy whose
// shadow or helper still runs is kept.
func sweepCopies(store snap.Store, wsDirs []string) (out []Swept) {
	seen := map[string]bool{}
	var bases []string
	add := func(list []string) {
		for _, b := range list {
			if !seen[b] {
				seen[b] = true
				bases = append(bases, b)
			}
		}
	}
	add([]string{store.SandboxDir(), copy.TmpCopies()})
	for _, d := range wsDirs {
		var info struct {
			Workspace string `json:"workspace"`
		}
		if b, err := os.ReadFile(filepath.Join(d, "workspace.json")); err == nil && json.Unmarshal(b, &info) == nil && filepath.IsAbs(info.Workspace) {
			add(copy.Bases(store.SandboxDir(), info.Workspace))
		}
	}
	for _, base := range bases {
		r := copy.GC(base, overlay.SweepMinAge)
		for dir, why := range r.Kept {
			out = append(out, Swept{Line: fmt.Sprintf("kept %s: %s", dir, why)})
		}
		for _, dir := range r.Removed {
			out = append(out, Swept{Line: "removed " + dir})
		}
		for _, err := range r.Errors {
			out = append(out, Swept{Err: err})
		}
		if filepath.Base(base) == copy.SiblingDir {
			_ = os.Remove(base) // only if empty: nothing left beside the checkout
		}
	}
	return out
}
