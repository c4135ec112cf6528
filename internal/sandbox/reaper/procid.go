//go:build linux || darwin

package reaper

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// ProcID is a process as a later shadow can recognise it again: a pid
// alone may have been recycled, a pid with its start time (in the boot
// BootID names) cannot.
type ProcID struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// Identify names the living process pid, ok false when there is none.
func Identify(pid int) (ProcID, bool) {
	st, ok := procStart(pid)
	return ProcID{PID: pid, Start: st}, ok
}

// Self names this process.
func Self() ProcID {
	p, _ := Identify(os.Getpid())
	return p
}

// Alive says whether the process p names still runs. A zombie does not:
// it has done all it will do, only its parent has not reaped it yet.
func (p ProcID) Alive() bool {
	if p.PID <= 0 {
		return false
	}
	st, ok := procStart(p.PID)
	return ok && st == p.Start && !zombie(p.PID)
}

// BootID names this boot ("" where unknown): a ProcID recorded in another
// boot names nothing now.
func BootID() string { return bootID() }

// Outlive waits until the helper h (recorded by a shadow that has since
// died) has exited: on its parent's death it ends the command's whole
// tree, then exits (PR_SET_PDEATHSIG; polled on macOS). Only a helper
// that has not done so within wait is ended from here: every descendant
// first, while the helper still adopts their orphans, then the helper.
// Callers use it before they touch what the command could still write.
func Outlive(h ProcID, wait time.Duration) {
	deadline := time.Now().Add(wait)
	for h.Alive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !h.Alive() {
		return
	}
	// A process with SIGKILL pending cannot fork (fork(2)): each round
	// the tree shrinks.
	for round := 0; round < 2000; round++ {
		live := descendants(h.PID)
		if len(live) == 0 {
			break
		}
		for _, p := range live {
			_ = unix.Kill(p, unix.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if h.Alive() {
		_ = unix.Kill(h.PID, unix.SIGKILL)
	}
	for i := 0; i < 250 && h.Alive(); i++ {
		time.Sleep(20 * time.Millisecond)
	}
}

// Supported says whether Run can work here (nil: yes).
func Supported() error { return nil }
