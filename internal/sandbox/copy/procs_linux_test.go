package copy

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"github.com/shadow-dev/shadow/internal/procfs"
)

func zombie(pid int) bool {
	f, ok := procfs.StatFields(pid)
	return !ok || len(f) == 0 || f[0] == "Z" || f[0] == "X"
}

// marked lists living processes whose environment holds mark.
func marked(mark string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(b, []byte(mark)) {
			continue
		}
		if zombie(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// killAll ends what a failed test left running (a fork loop included)
// so one failure does not load the machine for the tests after it.
func killAll(pids []int) {
	for round := 0; round < 50 && len(pids) > 0; round++ {
		for _, p := range pids {
			_ = syscallKill(p)
		}
		time.Sleep(20 * time.Millisecond)
		var next []int
		for _, p := range pids {
			if _, ok := procfs.StatFields(p); ok && !zombie(p) {
				next = append(next, p)
			}
		}
		pids = next
	}
}
