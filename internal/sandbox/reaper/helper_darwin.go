package reaper

import (
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// macOS has no child subreaper: a descendant whose parent exits is
// re-parented to launchd and leaves the tree descendants() walks. The
// helper still ends everything that is below it when the command ends.
func becomeSubreaper() error { return nil }

// notDumpable: macOS has no PR_SET_DUMPABLE (its ptrace of a same-uid
// process is gated by the system's own policy).
func notDumpable() {}

func commandAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func sealedCommandAttr() *syscall.SysProcAttr { return commandAttr() }

// watchParent polls for shadow's death: macOS has no PR_SET_PDEATHSIG.
func watchParent(parent int) <-chan struct{} {
	if parent == 0 {
		return nil
	}
	c := make(chan struct{})
	go func() {
		for os.Getppid() == parent {
			time.Sleep(250 * time.Millisecond)
		}
		close(c)
	}()
	return c
}

// descendants lists root's living descendants from the kernel's process
// table (kern.proc.all), by parent pid.
func descendants(root int) []int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	zombie := map[int]bool{}
	for _, p := range procs {
		pid := int(p.Proc.P_pid)
		children[int(p.Eproc.Ppid)] = append(children[int(p.Eproc.Ppid)], pid)
		zombie[pid] = p.Proc.P_stat == 5 // SZOMB
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if c == p {
				continue
			}
			queue = append(queue, c)
			if !zombie[c] {
				out = append(out, c)
			}
		}
	}
	return out
}

// helperAttr: a session of its own; shadow's death is seen by polling
// (watchParent).
func helperAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// procStart is a process's start time in microseconds since the epoch
// (kern.proc.pid's p_starttime).
func procStart(pid int) (uint64, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return 0, false
	}
	t := kp.Proc.P_starttime
	return uint64(t.Sec)*1e6 + uint64(t.Usec), true
}

func bootID() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	return strconv.FormatInt(int64(tv.Sec), 10)
}

func zombie(pid int) bool {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err != nil || kp.Proc.P_pid != int32(pid) || kp.Proc.P_stat == 5 // SZOMB
}
