//go:build linux

package stale

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine/checkout"
)

// Start sets an inotify watch on every source directory of the
// checkout and returns once all are set (see watch.go for what is
// compared against what). Where inotify is unavailable or its watch limit
// (fs.inotify.max_user_watches) is too low for the checkout, it falls back
// to scanning the sources at start and at the end.
func Start(workspace string, exclude ...string) Watch {
	workspace, exclude = resolvePaths(workspace, exclude)
	w, err := startInotify(workspace, exclude)
	if err != nil {
		return scanWatch{st: ScanSources(workspace, exclude...), workspace: workspace}
	}
	return w
}

// watchMask: what changes a directory's entries or their content.
// IN_OPEN, IN_ACCESS and IN_CLOSE_NOWRITE are left out: overlayfs reads
// the lower files on the hypotheses' behalf. IN_EXCL_UNLINK: writes to a
// file already unlinked from the directory are not the checkout's.
// IN_ONLYDIR|IN_DONT_FOLLOW: a directory swapped for a symlink between the
// walk's listing and the watch is not followed out of the checkout.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_EXCL_UNLINK | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// maxWatches bounds the directories one run watches, below the kernel's
// own limit, which every inotify user of the same uid shares (and each
// watched directory's inode stays cached while watched).
const maxWatches = 100000

var errWatchLimit = errors.New("inotify watch limit reached")

// Test hooks: afterWatch runs after each directory of the first walk is
// watched and read (from the walk's goroutines; levels one after another); holdReader, when set, keeps the reader from reading
// until it is closed (so a test can overflow the queue).
var (
	afterWatch func(rel string)
	holdReader chan struct{}
)

type inotifyWatch struct {
	ws      string
	exclude []string
	fd      int // inotify instance
	stop    int // eventfd: Stop asks the reader to drain and end
	dirs    map[int]*watchedDir
	wds     map[string]int // rel dir -> watch descriptor
	git     bool
	ign     *gitIgnore // which directories git ignores (nil outside git)
	// mu guards dirs, wds and log while a level is watched in parallel;
	// after the walk only the reader touches them.
	mu    sync.Mutex
	log   *changeLog
	dents []byte
	// gone: leaf directories removed or renamed away before their files
	// were ever listed; moves: renames within the checkout, old and new
	// name, whose new place was listed (resolveMoves); movedFrom: the
	// old name of a directory rename, by the rename's cookie.
	gone      map[string]bool
	moves     [][2]string
	movedFrom map[uint32]string
	// rootDev: the workspace's device when leaf directories can be told
	// by their link count (nil: read every directory).
	rootDev *uint64
	done    chan struct{}
}

// watchedDir is one watched directory and the file names it held when its
// watch was set: what a rename or removal of the directory takes away.
type watchedDir struct {
	rel    string
	listed bool   // read at its watch (not a leaf skipped unread)
	dents  []byte // its getdents(2) records, parsed only if it goes away
}

// leaf: the directory open at dfd has no subdirectory, known from its
// link count (2: its entry in the parent and its own ".") on a
// filesystem that counts subdirectories' ".." links (ext2/3/4, xfs,
// tmpfs; btrfs and most FUSE filesystems do not), as find(1)'s leaf
// optimisation does. Its files need no listing: the watch (set before
// this fstat) reports every change to them, and a subdirectory made after
// the watch is an event too.
func (w *inotifyWatch) leaf(dfd int) bool {
	if w.rootDev == nil {
		return false
	}
	var st unix.Stat_t
	return unix.Fstat(dfd, &st) == nil && st.Nlink == 2 && st.Dev == *w.rootDev
}

// countsSubdirs is the device of the workspace when its filesystem is
// one whose directory link counts count subdirectories, else nil.
func countsSubdirs(workspace string) *uint64 {
	var fs unix.Statfs_t
	var st unix.Stat_t
	if unix.Statfs(workspace, &fs) != nil || unix.Stat(workspace, &st) != nil {
		return nil
	}
	switch fs.Type {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		dev := st.Dev
		return &dev
	}
	return nil
}

func startInotify(workspace string, exclude []string) (*inotifyWatch, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	w := &inotifyWatch{
		ws: workspace, exclude: exclude, fd: fd, stop: efd,
		dirs: map[int]*watchedDir{}, wds: map[string]int{},
		log: newChangeLog(), dents: make([]byte, 64<<10), done: make(chan struct{}),
		rootDev: countsSubdirs(workspace), gone: map[string]bool{}, movedFrom: map[uint32]string{},
	}
	if isGitCheckout(workspace) {
		w.git = true
		w.ign = newGitIgnore(workspace)
	}
	err = w.watchTrees([]string{""}, false)
	w.resolveMoves()
	if err != nil {
		w.ign.close()
		unix.Close(fd)
		unix.Close(efd)
		return nil, err
	}
	go w.read(holdReader)
	return w, nil
}

// watchTrees watches each root and every directory below it that is a
// source directory, level by level so that git answers for a whole level
// at once. created: the roots appeared during the run, so every file
// found below them is a new path.
func (w *inotifyWatch) watchTrees(roots []string, created bool) error {
	level := roots
	for len(level) > 0 {
		subs, err := w.watchLevel(level, created)
		if err != nil {
			return err
		}
		if w.ign != nil && len(subs) > 0 {
			subs = w.ign.sourceDirs(subs)
		}
		sort.Strings(subs) // the order of getdents(2) is the filesystem's
		level = subs
	}
	return nil
}

// watchLevel watches the directories of one level, a few at a time: the
// cost is getdents(2) and inotify_add_watch(2), kernel time that spreads
// over the cores.
func (w *inotifyWatch) watchLevel(level []string, created bool) ([]string, error) {
	subs := make([][]string, len(level))
	errs := make([]error, len(level))
	var next atomic.Int64
	work := func() {
		dents := make([]byte, 32<<10)
		for {
			i := int(next.Add(1) - 1)
			if i >= len(level) {
				return
			}
			subs[i], errs[i] = w.watchDir(level[i], created, dents)
			if afterWatch != nil && !created && errs[i] == nil {
				afterWatch(level[i])
			}
		}
	}
	var wg sync.WaitGroup
	for range min(len(level), 4) - 1 {
		wg.Add(1)
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()
	var all []string
	for i := range level {
		if errs[i] != nil {
			return nil, errs[i]
		}
		all = append(all, subs[i]...)
	}
	return all, nil
}

// watchDir sets the watch on one directory, then reads it (in that order:
// an entry made after the read is an event), and returns its
// subdirectories that may hold sources.
func (w *inotifyWatch) watchDir(rel string, created bool, dents []byte) ([]string, error) {
	abs := filepath.Join(w.ws, filepath.FromSlash(rel))
	wd, err := unix.InotifyAddWatch(w.fd, abs, watchMask)
	if errors.Is(err, unix.ENOSPC) {
		return nil, errWatchLimit
	}
	if err != nil && rel == "" {
		return nil, fmt.Errorf("watch %s: %w", abs, err) // not a directory we can watch: fall back to a scan
	}
	if err != nil {
		return nil, nil // gone, or unreadable: no sources to follow there
	}
	d := &watchedDir{rel: rel}
	w.mu.Lock()
	if len(w.wds) >= maxWatches {
		w.mu.Unlock()
		return nil, errWatchLimit
	}
	if old := w.dirs[wd]; old != nil && old.rel != rel {
		// The same directory under a new name: it moved after its old
		// place was watched (during the walk, before the reader could
		// see the rename). Its files left the old place and are new here.
		w.removeTree(old.rel, wd)
		w.moves = append(w.moves, [2]string{old.rel, rel})
		created = true
	}
	w.dirs[wd], w.wds[rel] = d, wd
	w.mu.Unlock()

	dfd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, nil
	}
	defer unix.Close(dfd)
	if !created && w.leaf(dfd) {
		return nil, nil
	}
	d.listed = true
	var subs []string
	nested := false
	for {
		n, err := unix.Getdents(dfd, dents)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		d.dents = append(d.dents, dents[:n]...)
		eachDirent(dents[:n], func(name []byte, typ byte) {
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if unix.Fstatat(dfd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
					typ = unix.DT_DIR
				}
			}
			if string(name) == ".git" {
				// The checkout's own repository is not a source; a
				// .git below the top is a nested repository or
				// submodule, whose files git does not list either.
				nested = nested || (rel != "" && w.git)
				if rel == "" || typ == unix.DT_DIR {
					return
				}
			}
			if typ == unix.DT_DIR {
				child := path.Join(rel, string(name))
				if (!w.git && skipDirs[string(name)]) || excluded(w.ws, child, w.exclude) {
					return
				}
				subs = append(subs, child)
				return
			}
			if created {
				w.mu.Lock()
				w.log.add(path.Join(rel, string(name)), chCreate)
				w.mu.Unlock()
			}
		})
	}
	if nested {
		w.mu.Lock()
		w.unwatch(wd, rel)
		w.mu.Unlock()
		return nil, nil
	}
	return subs, nil
}

// eachDirent calls f for each entry but . and .. of getdents64(2)
// records: struct linux_dirent64 is d_ino u64, d_off s64, d_reclen u16,
// d_type u8, then d_name, NUL-terminated.
func eachDirent(b []byte, f func(name []byte, typ byte)) {
	for off := 0; off+19 <= len(b); {
		reclen := int(binary.NativeEndian.Uint16(b[off+16:]))
		if reclen == 0 || off+reclen > len(b) {
			return
		}
		typ := b[off+18]
		name := b[off+19 : off+reclen]
		if i := indexNUL(name); i >= 0 {
			name = name[:i]
		}
		off += reclen
		if string(name) != "." && string(name) != ".." {
			f(name, typ)
		}
	}
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

func (w *inotifyWatch) unwatch(wd int, rel string) {
	unix.InotifyRmWatch(w.fd, uint32(wd))
	delete(w.dirs, wd)
	if w.wds[rel] == wd {
		delete(w.wds, rel)
	}
}

// unwatchTree forgets the watches on rel and below.
func (w *inotifyWatch) unwatchTree(rel string) {
	for r, wd := range w.wds {
		if r == rel || strings.HasPrefix(r, rel+"/") {
			w.unwatch(wd, r)
		}
	}
}

// removeTree: the directory rel was removed or renamed away; every file
// it and its subdirectories held when watched is gone from its path.
// keep: a watch descriptor to keep (it is being mapped to a new name).
func (w *inotifyWatch) removeTree(rel string, keep int) {
	for r, wd := range w.wds {
		if r != rel && !strings.HasPrefix(r, rel+"/") {
			continue
		}
		if d := w.dirs[wd]; d.listed {
			eachDirent(d.dents, func(name []byte, typ byte) {
				if typ != unix.DT_DIR && (r != "" || string(name) != ".git") {
					w.log.add(path.Join(r, string(name)), chRemove)
				}
			})
		} else {
			w.gone[r] = true // a leaf never read: resolved by resolveMoves, or reported as itself
		}
		if wd == keep {
			delete(w.wds, r)
			continue
		}
		w.unwatch(wd, r)
	}
}

// resolveMoves: a directory renamed within the checkout took its files
// along, and its new place was listed whole (as new), so the files it
// held at the old place are named even where the old place was a leaf
// never read (which is reported too: the listing comes after the rename).
func (w *inotifyWatch) resolveMoves() {
	for _, m := range w.moves {
		from, to := m[0], m[1]
		var moved []string
		for p := range w.log.paths {
			if strings.HasPrefix(p, to+"/") {
				moved = append(moved, p)
			}
		}
		for _, p := range moved {
			w.log.add(from+strings.TrimPrefix(p, to), chRemove)
		}
		// The gone leaves under from stay reported as themselves: a file
		// removed from the new place before it was listed is named by
		// no one else.
	}
	w.moves = w.moves[:0]
}

// read handles events until Stop, then drains what is queued: every
// change made before Stop is in the queue by then (inotify queues the
// event as the operation completes).
func (w *inotifyWatch) read(hold chan struct{}) {
	defer close(w.done)
	if hold != nil {
		<-hold
	}
	buf := make([]byte, 64<<10)
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.stop), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			w.log.whole = true
			return
		}
		for {
			n, err := unix.Read(w.fd, buf)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if n <= 0 {
				break // EAGAIN: the queue is empty
			}
			w.handle(buf[:n])
		}
		if fds[1].Revents != 0 {
			return
		}
	}
}

// handle parses struct inotify_event records (inotify(7)).
func (w *inotifyWatch) handle(b []byte) {
	for off := 0; off+unix.SizeofInotifyEvent <= len(b); {
		wd := int(int32(binary.NativeEndian.Uint32(b[off:])))
		mask := binary.NativeEndian.Uint32(b[off+4:])
		cookie := binary.NativeEndian.Uint32(b[off+8:])
		nl := int(binary.NativeEndian.Uint32(b[off+12:]))
		name := b[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nl]
		if i := indexNUL(name); i >= 0 {
			name = name[:i]
		}
		off += unix.SizeofInotifyEvent + nl
		w.event(wd, mask, cookie, string(name))
	}
}

func (w *inotifyWatch) event(wd int, mask, cookie uint32, name string) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.log.whole = true // events were lost: nothing can be ruled out
		return
	}
	d := w.dirs[wd]
	if d == nil {
		return // a watch already removed
	}
	if mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 {
		if d.rel == "" {
			w.log.whole = true // the checkout itself moved or went away
		}
		if mask&unix.IN_IGNORED != 0 {
			delete(w.dirs, wd)
			if w.wds[d.rel] == wd {
				delete(w.wds, d.rel)
			}
		}
		return
	}
	if name == "" {
		return
	}
	rel := path.Join(d.rel, name)
	if excluded(w.ws, rel, w.exclude) {
		return
	}
	if mask&unix.IN_ISDIR != 0 {
		switch {
		case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
			if !w.git && skipDirs[name] {
				return
			}
			if w.ign != nil && len(w.ign.sourceDirs([]string{rel})) == 0 {
				return
			}
			if _, ok := w.wds[rel]; ok {
				w.removeTree(rel, -1) // replaced what was there
			}
			if err := w.watchTrees([]string{rel}, true); err != nil {
				w.log.whole = true
			}
			if old, ok := w.movedFrom[cookie]; ok && mask&unix.IN_MOVED_TO != 0 {
				delete(w.movedFrom, cookie)
				w.moves = append(w.moves, [2]string{old, rel})
			}
			w.resolveMoves()
		case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
			if mask&unix.IN_DELETE != 0 {
				// rmdir(2) takes only an empty directory: each of its
				// files had its own event.
				w.unwatchTree(rel)
				return
			}
			w.movedFrom[cookie] = rel
			w.removeTree(rel, -1)
		}
		return
	}
	switch {
	case mask&unix.IN_CREATE != 0:
		w.log.add(rel, chCreate)
	case mask&unix.IN_MOVED_TO != 0:
		w.log.add(rel, chMoveIn)
	case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
		w.log.add(rel, chRemove)
	case mask&unix.IN_MODIFY != 0:
		w.log.add(rel, chWrite)
	case mask&unix.IN_ATTRIB != 0:
		w.log.add(rel, chAttrib)
	}
}

func (w *inotifyWatch) Stop(known map[string]checkout.FileState) []string {
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	unix.Write(w.stop, one[:])
	<-w.done
	// Closing an inotify instance frees its marks after an SRCU grace
	// period (fsnotify_destroy_group), milliseconds the run need not wait.
	go func() {
		unix.Close(w.fd)
		unix.Close(w.stop)
	}()
	w.ign.close()
	for g := range w.gone {
		w.log.add(g, chRemove) // moved out of the checkout unread: the directory stands for its files
	}
	var classify func([]string) (map[string]string, map[string]bool)
	if w.git {
		classify = gitClassify(w.ws)
	}
	return w.log.staleSet(w.ws, known, w.exclude, classify)
}
