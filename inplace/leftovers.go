//go:build unix

package inplace

import (
	"time"

	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
)

// killLeftovers makes sure nothing of a crashed run's command still runs
// before its journal is replayed: a process still writing into the
// checkout would undo the restore. The shadow that started it was killed;
// its process helper got SIGTERM then (PR_SET_PDEATHSIG) and is ending
// the command's whole tree, so the replay waits for the helper to be gone
// (and ends the tree itself only if the helper does not finish in time).
// A helper recorded in another boot names nothing now.
func killLeftovers(j *Journal) {
	if j.Helper == nil || j.BootID == "" || j.BootID != reaper.BootID() {
		return
	}
	reaper.Outlive(*j.Helper, Grace+10*time.Second)
}
