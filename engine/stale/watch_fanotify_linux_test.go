//go:build linux

package stale

import (
	"encoding/binary"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fanotify(7) with FAN_MARK_FILESYSTEM, measured as the alternative to
// one inotify watch per directory (root only: the mark needs
// CAP_SYS_ADMIN). Its set-up is one mark whatever the checkout's size,
// but it reports every change on the whole filesystem, by directory file
// handle and name: a run would have to map each handle back to a path
// (open_by_handle_at) or to a set of source-directory handles (a walk
// again), and the hypotheses' own upper dirs on the same filesystem add
// their builds' writes to the stream. The benchmark prints the set-up
// cost and the events the rest of the machine made in one second.
func BenchmarkFanotifyFilesystemMark(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("FAN_MARK_FILESYSTEM needs CAP_SYS_ADMIN")
	}
	ws := benchWS(b)
	mask := uint64(unix.FAN_MODIFY | unix.FAN_ATTRIB | unix.FAN_CREATE | unix.FAN_DELETE | unix.FAN_MOVED_FROM | unix.FAN_MOVED_TO | unix.FAN_ONDIR)
	var fd int
	var fds []int
	defer func() {
		for _, f := range fds {
			unix.Close(f) // closing waits for an SRCU grace period: not set-up
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		var err error
		fd, err = unix.FanotifyInit(unix.FAN_CLASS_NOTIF|unix.FAN_REPORT_DFID_NAME|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK, unix.O_RDONLY)
		if err != nil {
			b.Skip("fanotify_init:", err)
		}
		if err := unix.FanotifyMark(fd, unix.FAN_MARK_ADD|unix.FAN_MARK_FILESYSTEM, mask, unix.AT_FDCWD, ws); err != nil {
			unix.Close(fd)
			b.Skip("fanotify_mark:", err)
		}
		fds = append(fds, fd)
	}
	b.StopTimer()
	fd, _ = unix.FanotifyInit(unix.FAN_CLASS_NOTIF|unix.FAN_REPORT_DFID_NAME|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK, unix.O_RDONLY)
	defer unix.Close(fd)
	unix.FanotifyMark(fd, unix.FAN_MARK_ADD|unix.FAN_MARK_FILESYSTEM, mask, unix.AT_FDCWD, ws)
	buf := make([]byte, 64<<10)
	events := 0
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		n, err := unix.Read(fd, buf)
		if err != nil {
			time.Sleep(time.Millisecond)
			continue
		}
		// struct fanotify_event_metadata begins with event_len (u32).
		for off := 0; off+4 <= n; {
			l := int(binary.NativeEndian.Uint32(buf[off:]))
			if l == 0 {
				break
			}
			events++
			off += l
		}
	}
	b.ReportMetric(float64(events), "fs-events/s")
}
