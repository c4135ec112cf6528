package overlay

import (
	"bufio"
	"os"
	"strings"
	"syscall"
)

// listeningSockets are the unix sockets with a path that a server of this
// user listens on right now, wherever they are: a tmux started with
// -S /tmp/x/sock, an ssh-agent, an editor's server, a D-Bus bus outside
// $XDG_RUNTIME_DIR. Each runs what a client asks with the user's rights
// outside every sandbox, and a socket stays connectable through the
// read-only view of / (connect(2) needs write permission on the socket,
// which a read-only mount does not take away: only regular files,
// directories and symlinks get EROFS, inode_permission in fs/namei.c).
// Every one owned by shadow's uid is masked (the init binds /dev/null
// over it). Another user's server (a database's socket owned by
// postgres) stays reachable: it is not the user, and a suite may need it.
//
// /proc/net/unix (proc(5)) lists the sockets of shadow's network
// namespace: a listening socket has the __SO_ACCEPTCON flag (0x10000)
// and state 01 (SS_UNCONNECTED); abstract ones start with '@' and are
// the hypothesis's own under its private network namespace.
func listeningSockets(uid int) []string {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sc.Scan() // header
	for sc.Scan() {
		// Num RefCount Protocol Flags Type St Inode Path
		fs := strings.Fields(sc.Text())
		if len(fs) < 8 || fs[3] != "00010000" || fs[5] != "01" {
			continue
		}
		p := strings.Join(fs[7:], " ")
		if !strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK || int(st.Uid) != uid {
			continue
		}
		out = append(out, p)
	}
	return out
}
