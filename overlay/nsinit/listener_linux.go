package nsinit

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownListener says whether the unix socket bound to the file (ino, dev)
// is listened on by a process of this PID namespace. It asks without
// connecting: a probe connection is a client the listener accepts and
// sees close at once (sccache's client took one for its server's
// start-up report: "early eof"). sock_diag(7) lists this network
// namespace's listening unix sockets with the file each is bound to
// (UNIX_DIAG_VFS); /proc, which shows this PID namespace, says whose
// descriptors hold the matching socket.
func ownListener(ino uint64, dev uint64) bool {
	socks, err := listeningAt(ino, dev)
	if err != nil || len(socks) == 0 {
		return false
	}
	return heldHere(socks)
}

// sock_diag's unix family (linux/unix_diag.h).
const (
	udiagShowVFS = 0x2 // UDIAG_SHOW_VFS
	unixDiagVFS  = 1   // UNIX_DIAG_VFS
	tcpListen    = 10  // TCP_LISTEN, the state of a listening unix socket
)

// listeningAt returns the inodes of the listening unix sockets bound to
// the file (ino, dev), in this network namespace.
func listeningAt(ino, dev uint64) (map[uint32]bool, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	// nlmsghdr (16) + unix_diag_req (24).
	req := make([]byte, 16+24)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], 1)
	req[16] = unix.AF_UNIX
	ne.PutUint32(req[20:], 1<<tcpListen)
	ne.PutUint32(req[28:], udiagShowVFS)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, err
	}
	// The kernel's dev_t in UNIX_DIAG_VFS (s_dev: major << 20 | minor),
	// not stat(2)'s encoding.
	want := uint32(unix.Major(dev))<<20 | uint32(unix.Minor(dev))
	out := map[uint32]bool{}
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return out, nil
			case unix.NLMSG_ERROR:
				return nil, unix.EINVAL
			}
			// unix_diag_msg (16), then attributes.
			if len(m.Data) < 16 {
				continue
			}
			sockIno := ne.Uint32(m.Data[4:])
			attrs := m.Data[16:]
			for len(attrs) >= 4 {
				l := int(ne.Uint16(attrs[0:]))
				if l < 4 || l > len(attrs) {
					break
				}
				if ne.Uint16(attrs[2:]) == unixDiagVFS && l >= 12 {
					if uint64(ne.Uint32(attrs[4:])) == ino && ne.Uint32(attrs[8:]) == want {
						out[sockIno] = true
					}
				}
				attrs = attrs[(l+3)&^3:]
			}
		}
	}
}

// heldHere says whether a process this /proc shows (the PID namespace's)
// holds one of socks among its descriptors.
func heldHere(socks map[uint32]bool) bool {
	pids, _ := filepath.Glob("/proc/[0-9]*/fd")
	for _, dir := range pids {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			l, err := os.Readlink(dir + "/" + e.Name())
			if err != nil {
				continue
			}
			rest, ok := strings.CutPrefix(l, "socket:[")
			if !ok {
				continue
			}
			if n, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 32); err == nil && socks[uint32(n)] {
				return true
			}
		}
	}
	return false
}
