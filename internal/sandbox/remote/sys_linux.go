package remote

import "syscall"

// masterAttr: the master dies with shadow even when shadow is killed
// (PR_SET_PDEATHSIG, prctl(2)), so no connection outlives the run.
func masterAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
