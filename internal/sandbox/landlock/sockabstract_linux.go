package landlock

import (
	"os"
	"strconv"
	"strings"
)

// ownAbstract says whether abstract unix socket name is held by a
// process of the command's tree (a descendant of the helper): Landlock's
// scope (ABI 6) lets a sealed command reach its own domain's abstract
// sockets and no other, and a connect the guard performs from outside
// the domain must keep that rule. The kernel lists bound sockets with
// their inodes in /proc/net/unix (the caller's network namespace is the
// helper's), abstract names with '@' for every NUL; each process's
// /proc/PID/fd names the socket inodes it holds.
func (g *sockGuard) ownAbstract(name []byte) bool {
	want := "@" + strings.ReplaceAll(string(name), "\x00", "@")
	if strings.ContainsAny(want, " \n") {
		return false
	}
	b, err := os.ReadFile("/proc/self/net/unix")
	if err != nil {
		return false
	}
	inodes := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) == 8 && f[7] == want {
			inodes["socket:["+f[6]+"]"] = true
		}
	}
	if len(inodes) == 0 {
		return false
	}
	for _, pid := range descendantsOf(g.helper) {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if l, err := os.Readlink(dir + e.Name()); err == nil && inodes[l] {
				return true
			}
		}
	}
	return false
}

// descendantsOf lists pid's descendants through /proc/PID/task/TID/
// children (proc(5)); the helper is a child subreaper, so the command's
// orphans stay below it.
func descendantsOf(pid int) []int {
	var out []int
	queue := []int{pid}
	seen := map[int]bool{pid: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		for _, t := range tasks {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + t.Name() + "/children")
			for _, f := range strings.Fields(string(b)) {
				c, err := strconv.Atoi(f)
				if err == nil && !seen[c] {
					seen[c] = true
					queue = append(queue, c)
					out = append(out, c)
				}
			}
		}
	}
	return out
}
