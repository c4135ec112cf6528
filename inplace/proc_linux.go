package inplace

import (
	"bytes"
	"errors"
	"github.com/shadow-dev/shadow/internal/procfs"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func bootID() string { return procfs.BootID() }

// procStat returns a process's process group and start time (clock ticks
// since boot) from /proc/PID/stat.
func procStat(pid int) (pgrp int, start uint64, ok bool) {
	st, ok := procfs.ReadStat(pid)
	return st.PGRP, st.Start, ok
}

// killLeftovers ends what is left of a crashed run's command: the shadow
// that started it was killed, so nobody else will. Only processes of the
// recorded group that started no earlier than its leader, in this boot,
// are signalled, so a recycled group id is left alone.
func killLeftovers(j *Journal) {
	if j.BootID == "" || j.BootID != bootID() {
		return
	}
	killTagged(j.ID)
	if j.PGID <= 0 {
		return
	}
	if _, start, ok := procStat(j.PGID); ok && start != j.PGIDStart {
		return // the id now belongs to another process
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pg, start, ok := procStat(pid); ok && pg == j.PGID && start >= j.PGIDStart {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// waitExited blocks until pid has exited, without reaping it: while it is
// a zombie its process group id cannot be reused, so signalling the group
// afterwards cannot hit a stranger.
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

const canWaitNoReap = true

// sysProcAttr puts the command in its own process group (so it and its
// children can be signalled together, and the terminal's Ctrl-C reaches
// shadow, which restores, rather than the command alone) and kills it if
// shadow dies (the thread that starts it must stay locked until Wait).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// mountOf is (st_dev, mount id) of p without following a symlink; the
// mount id (statx STATX_MNT_ID, Linux >= 5.8) is 0 where unknown. Two
// paths can be renamed into each other only on the same mount.
func mountOf(p string) (dev uint64, mnt uint64, err error) {
	var sx unix.Statx_t
	err = unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_MNT_ID, &sx)
	if err == nil {
		dev = unix.Mkdev(sx.Dev_major, sx.Dev_minor)
		if sx.Mask&unix.STATX_MNT_ID != 0 {
			mnt = sx.Mnt_id
		}
		return dev, mnt, nil
	}
	if !errors.Is(err, unix.ENOSYS) {
		return 0, 0, err
	}
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Dev), 0, nil
}

// tagEnv marks every process a job's command starts: the variable is
// inherited down the whole tree, also by what leaves the process group
// (setsid, a daemon that double-forks), which a group kill misses.
const tagEnv = "SHADOW_INPLACE_RUN"

// killTagged SIGKILLs every process of this user whose environment holds
// tagEnv=tag, round after round until a scan finds none (a fork between
// two scans is caught by the next); it gives up after a few seconds. A
// command that scrubs its environment escapes it: in-place mode guards
// against accidents, not a hostile command.
func killTagged(tag string) {
	want := []byte(tagEnv + "=" + tag + "\x00")
	self := os.Getpid()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		found := 0
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(append([]byte{0}, b...), append([]byte{0}, want...)) {
				continue
			}
			found++
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		if found == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// syncFS makes everything written under dir durable with one syncfs(2)
// of its filesystem: thousands of journaled originals cost one sync, not
// one fsync each.
func syncFS(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Syncfs(fd)
}
