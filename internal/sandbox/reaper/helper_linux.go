package reaper

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/internal/procfs"
)

// notDumpable makes the helper's /proc entries root's and ptrace of it
// refused to a process of the same uid without CAP_SYS_PTRACE
// (PR_SET_DUMPABLE, prctl(2); ptrace_may_access): the command runs as
// that uid with no namespace, and through /proc/PPID/fd it would reopen
// the helper's pipes, such as the one ForkExec reads the exec's errno
// from (a forged errno made the helper think the command never started).
// The command itself is dumpable again after execve. The overlay init
// does the same.
func notDumpable() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }

func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// commandAttr: the command starts a session of its own (no controlling
// terminal, so it cannot inject input into shadow's terminal with
// TIOCSTI, and the terminal's Ctrl-C reaches shadow, which then ends the
// run), and is killed if the helper dies.
func commandAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// sealedCommandAttr is commandAttr without Pdeathsig: a sealed command
// is forked by a thread that ends at once (landlock.ForkExecSealed).
func sealedCommandAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// watchParent: on Linux PR_SET_PDEATHSIG delivers SIGTERM when shadow
// dies (set by Sandbox.Run), which the signal loop handles.
func watchParent(parent int) <-chan struct{} { return nil }

// descendants lists root's living descendants (zombies left out: they
// are reaped, not signalled), walking /proc/PID/task/TID/children
// (proc(5), present since Linux 3.5 with CONFIG_PROC_CHILDREN) from root
// down; without those files, by the parent field of every /proc/PID/stat.
func descendants(self int) []int {
	if _, err := os.Stat("/proc/" + strconv.Itoa(self) + "/task/" + strconv.Itoa(self) + "/children"); err != nil {
		return descendantsByStat(self)
	}
	var out []int
	queue := []int{self}
	seen := map[int]bool{self: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				c, err := strconv.Atoi(f)
				if err != nil || seen[c] {
					continue
				}
				seen[c] = true
				queue = append(queue, c)
				if !zombie(c) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

func zombie(pid int) bool {
	f, ok := procfs.StatFields(pid)
	return !ok || len(f) == 0 || f[0] == "Z" || f[0] == "X"
}

func descendantsByStat(self int) []int {
	ents, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	state := map[int]string{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, ok := procfs.StatFields(pid)
		if !ok || len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		children[pp] = append(children[pp], pid)
		state[pid] = f[0]
	}
	var out []int
	queue := []int{self}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			queue = append(queue, c)
			if s := state[c]; s != "Z" && s != "X" {
				out = append(out, c)
			}
		}
	}
	return out
}

// helperAttr: the helper starts a session of its own (the terminal's
// signals go to shadow, which ends runs itself) and gets SIGTERM when the
// thread of shadow that started it dies, which it handles by ending the
// command's whole tree.
func helperAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
}

// procStart is a process's start time in clock ticks since boot, field 22
// of /proc/PID/stat (proc(5)).
func procStart(pid int) (uint64, bool) {
	st, ok := procfs.ReadStat(pid)
	return st.Start, ok
}

func bootID() string { return procfs.BootID() }
