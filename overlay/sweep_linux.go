package overlay

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/overlay/nsinit"
)

// Sweep removes the sandbox dirs under each base that crashed runs (and
// probes) left: every hyp-* or probe-* dir that no live process uses (a
// mount point or overlay layer in any mount namespace, a cwd, root or open
// file) and that is older than SweepMinAge. A base named twice is swept
// once.
func Sweep(bases ...string) []Swept {
	var out []Swept
	var live liveSet
	seen := map[string]bool{}
	for _, base := range bases {
		if seen[base] {
			continue
		}
		seen[base] = true
		ents, err := os.ReadDir(base)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() || !(strings.HasPrefix(e.Name(), hypPrefix) || strings.HasPrefix(e.Name(), probePrefix)) {
				continue
			}
			dir := filepath.Join(base, e.Name())
			if why := sandboxInUse(dir, &live); why != "" {
				out = append(out, Swept{Dir: dir, Kept: why})
				continue
			}
			out = append(out, Swept{Dir: dir, Err: removeNoCross(dir)})
		}
	}
	return out
}

// liveSet is what running processes use: mount points and overlay
// layer dirs in every mount namespace, and open files and directories.
type liveSet struct {
	loaded bool
	paths  []string
}

func (l *liveSet) load() {
	if l.loaded {
		return
	}
	l.loaded = true
	seenNS := map[string]bool{}
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			l.paths = append(l.paths, filepath.Clean(p))
		}
	}
	// Our own namespace first: a mount point inside a dir must never be
	// deleted through.
	l.mountinfo("/proc/self/mountinfo", add)
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		pd := filepath.Join("/proc", p.Name())
		if ns, err := os.Readlink(filepath.Join(pd, "ns", "mnt")); err == nil && !seenNS[ns] {
			seenNS[ns] = true
			l.mountinfo(filepath.Join(pd, "mountinfo"), add)
		}
		for _, link := range []string{"cwd", "root"} {
			if t, err := os.Readlink(filepath.Join(pd, link)); err == nil && t != "/" {
				add(t)
			}
		}
		fds, _ := os.ReadDir(filepath.Join(pd, "fd"))
		for _, fd := range fds {
			if t, err := os.Readlink(filepath.Join(pd, "fd", fd.Name())); err == nil {
				add(strings.TrimSuffix(t, " (deleted)"))
			}
		}
	}
}

// mountinfo adds each mount point and each overlay layer directory
// (lowerdir, upperdir, workdir) of one mount table (proc(5),
// /proc/PID/mountinfo: field 5 is the mount point, the super options
// follow the "-" separator and the filesystem type and source).
func (l *liveSet) mountinfo(file string, add func(string)) {
	b, err := os.ReadFile(file)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		add(nsinit.UnescapeMountinfo(f[4]))
		for i, x := range f {
			if x == "-" && i+3 < len(f) {
				for _, opt := range strings.Split(f[i+3], ",") {
					k, v, ok := strings.Cut(opt, "=")
					if !ok || (k != "lowerdir" && k != "upperdir" && k != "workdir") {
						continue
					}
					for _, d := range strings.Split(v, ":") {
						add(nsinit.UnescapeMountinfo(d))
					}
				}
				break
			}
		}
	}
}

// sandboxInUse says why dir must stay, or "".
func sandboxInUse(dir string, live *liveSet) string {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err.Error()
	}
	if time.Since(fi.ModTime()) < SweepMinAge {
		return "too recent (a run may be preparing it)"
	}
	live.load()
	for _, p := range live.paths {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			return "in use (" + p + " is mounted or open)"
		}
	}
	return ""
}

// removeNoCross removes dir, refusing to descend into anything on another
// device (a mount point that appeared after the check).
func removeNoCross(dir string) error {
	root, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	dev := devOf(root)
	var crossed error
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		fi, err := os.Lstat(p)
		if err == nil && devOf(fi) != dev {
			crossed = fmt.Errorf("%s is on another filesystem (a mount point): not removing through it", p)
			return filepath.SkipAll
		}
		return nil
	})
	if crossed != nil {
		return crossed
	}
	return fsutil.RemoveTree(dir)
}

// devOf is the device a file lives on: Sweep never removes across a
// mount.
func devOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev)
	}
	return 0
}
