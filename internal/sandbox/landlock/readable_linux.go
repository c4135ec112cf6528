package landlock

import (
	"os"
	"path/filepath"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// What a sealed command may read. Landlock only allows (landlock(7): a
// ruleset grants, nothing in it denies), so "everything but" is granted
// by splitting: every directory may be listed (a rule on / with
// READ_DIR alone: names, not contents), and files may be read and run
// beneath every entry of / except the hidden paths, which are reached by
// walking down only the directories that hold one (their other entries
// granted each as a tree). Hidden are always /dev, whose nodes are
// granted one by one (devNodes): the user's terminals (/dev/pts/N,
// /dev/tty*, /dev/console) are files the user can open, and a command
// that reads one takes the keystrokes typed there; and the policy's
// Hidden: shadow's state dir (its integrity key, records and journals)
// and the running siblings' copies. A rule is on an inode, so a path
// through /proc/PID/root or /proc/PID/fd reaches a hidden file no more
// than its own path does; an entry made after the seal in a walked
// directory is not readable (it was not granted).

// devNodes are the device files a command may read: what bubblewrap's
// --dev and runc's default spec give a container, less the terminals.
var devNodes = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// readRules are the read grants of a policy hiding hidden (and /dev).
func readRules(hidden []string) []ll.Rule {
	hs := []string{"/dev"}
	for _, h := range hidden {
		if !filepath.IsAbs(h) {
			continue
		}
		// A path that does not exist hides nothing (and walking down to
		// it would grant each entry of its parents one by one).
		r, err := filepath.EvalSymlinks(h)
		if err != nil {
			continue
		}
		hs = append(hs, filepath.Clean(r))
	}
	var grant []string
	var walk func(dir string)
	walk = func(dir string) {
		// The entries' types come with their names (getdents(2)'s
		// d_type; os.ReadDir lstats only where a filesystem gives none):
		// a walked directory such as /tmp may hold hundreds of entries,
		// and this runs once per hypothesis.
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			switch hiddenClass(p, hs) {
			case isHidden:
				continue
			case holdsHidden:
				if e.IsDir() {
					walk(p)
				}
				continue
			}
			if e.Type()&os.ModeSymlink != 0 {
				// A link is granted where it leads: never to a hidden
				// path or one that holds one (walked where it lies).
				r, err := filepath.EvalSymlinks(p)
				if err != nil || hiddenClass(r, hs) != visible {
					continue
				}
			}
			grant = append(grant, p)
		}
	}
	walk("/")
	return []ll.Rule{
		ll.PathAccess(ll.AccessFSSet(llsys.AccessFSReadDir), "/"),
		ll.ROFiles(grant...).IgnoreIfMissing(),
		ll.ROFiles(devNodes...).IgnoreIfMissing(),
	}
}

const (
	visible = iota
	isHidden
	holdsHidden
)

// hiddenClass says whether p is hidden (a hidden path or beneath one),
// holds a hidden path beneath it, or neither.
func hiddenClass(p string, hs []string) int {
	out := visible
	for _, h := range hs {
		switch {
		case p == h || strings.HasPrefix(p, h+"/") || h == "/":
			return isHidden
		case strings.HasPrefix(h, p+"/") || p == "/":
			out = holdsHidden
		}
	}
	return out
}
