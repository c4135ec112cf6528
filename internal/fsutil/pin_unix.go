//go:build unix

package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Pin remembers what shadow's own directories are at the start of a run
// (the state dir and each directory above it): their device and inode,
// owner and type. Check, before shadow reads them again after the
// hypotheses ran, says whether any was replaced: in copy and in-place
// modes a hypothesis runs as the user with no namespace, and `mv
// ~/.local/state ~/.local/state.x` followed by a fresh state dir of its
// own (its own integrity key, its own journal) would have shadow record
// into it and trust it next time. Overlay mode's $HOME overlay keeps such
// a rename inside the hypothesis; the pin is what holds in every mode.
type Pin struct {
	entries []pinned
}

type pinned struct {
	path     string
	dev, ino uint64
	uid      uint32
	mode     os.FileMode // type bits
}

// PinDirs pins dir and every directory above it. A dir that does not
// exist yet is pinned from its first existing ancestor up.
func PinDirs(dirs ...string) *Pin {
	p := &Pin{}
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		for cur := d; ; cur = filepath.Dir(cur) {
			if !seen[cur] {
				seen[cur] = true
				if e, ok := pinOne(cur); ok {
					p.entries = append(p.entries, e)
				}
			}
			if cur == "/" || cur == "." {
				break
			}
		}
	}
	return p
}

func pinOne(path string) (pinned, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return pinned{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return pinned{}, false
	}
	return pinned{path: path, dev: uint64(st.Dev), ino: uint64(st.Ino), uid: st.Uid, mode: fi.Mode().Type()}, true
}

// Check returns an error naming the first pinned directory that is gone,
// or now another file (a rename, a symlink put in its place, another
// owner).
func (p *Pin) Check() error {
	if p == nil {
		return nil
	}
	for _, e := range p.entries {
		now, ok := pinOne(e.path)
		switch {
		case !ok:
			return fmt.Errorf("%s, one of shadow's directories, is gone since the run started (a hypothesis moved or removed it?)", e.path)
		case now.dev != e.dev || now.ino != e.ino:
			return fmt.Errorf("%s, one of shadow's directories, was replaced during the run (device/inode %d/%d, was %d/%d): a hypothesis moved it and put another in its place", e.path, now.dev, now.ino, e.dev, e.ino)
		case now.mode != e.mode:
			return fmt.Errorf("%s, one of shadow's directories, changed type during the run (%v, was %v)", e.path, now.mode, e.mode)
		case now.uid != e.uid:
			return fmt.Errorf("%s, one of shadow's directories, changed owner during the run (uid %d, was %d)", e.path, now.uid, e.uid)
		}
	}
	return nil
}
