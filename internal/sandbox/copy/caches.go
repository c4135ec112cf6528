//go:build linux || darwin

package copy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// A copy slot's private caches (CacheDir/KEY-N: the GOCACHE,
// XDG_CACHE_HOME and npm cache of sealed commands) are kept from run to
// run like the slot's path, and would grow for ever: `shadow gc` removes
// those unused for CacheMaxAge (Go trims its own cache's entries unused
// for five days; a week keeps a slot warm across a weekend) and those of
// a recorded workspace that no longer exists. A job holds its slot's
// cache with a shared lock (flock(2) on cacheLock inside it), which gc
// needs exclusively before it moves the cache away, so a cache in use is
// never removed.

// CacheMaxAge is how long a slot's caches may go unused before gc
// removes them.
const CacheMaxAge = 7 * 24 * time.Hour

const cacheLock = ".shadow-slot.lock"

// gcSuffix names a cache gc has moved aside and is removing.
const gcSuffix = ".gc-"

// useCache makes cache (when missing), holds it for a job until release
// and marks it used (its mtime, which gc reads).
func useCache(cache string) (release func(), err error) {
	for try := 0; try < 3; try++ {
		if err := os.MkdirAll(cache, 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(cache, cacheLock), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		// Blocks only while gc moves the cache aside.
		if err := unix.Flock(int(f.Fd()), unix.LOCK_SH); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock the slot cache %s: %w", cache, err)
		}
		// gc may have moved the cache away between the open and the lock:
		// then the lock is the moved one's, and a fresh cache is made.
		var held, now unix.Stat_t
		if unix.Fstat(int(f.Fd()), &held) == nil && unix.Stat(filepath.Join(cache, cacheLock), &now) == nil &&
			held.Dev == now.Dev && held.Ino == now.Ino {
			t := time.Now()
			_ = os.Chtimes(cache, t, t)
			return func() { f.Close() }, nil
		}
		f.Close()
	}
	return nil, errors.New("the slot cache " + cache + " kept being removed by shadow gc: try again")
}

// CacheGC is what GCCaches did: each dir removed or kept, and why.
type CacheGC struct {
	Removed, Kept map[string]string
	Errors        []error
}

// GCCaches removes the slot caches under dir unused for maxAge, or whose
// workspace (one of workspaces, the checkouts shadow has recorded) is
// gone, except those a job holds.
func GCCaches(dir string, workspaces []string, maxAge time.Duration) CacheGC {
	r := CacheGC{Removed: map[string]string{}, Kept: map[string]string{}}
	gone := map[string]string{}
	for _, ws := range workspaces {
		if _, err := os.Stat(ws); errors.Is(err, os.ErrNotExist) {
			gone[slotKey(ws)] = ws
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			continue
		}
		if strings.Contains(e.Name(), gcSuffix) {
			// A gc that died half-way through a removal.
			if err := fsutil.RemoveTree(p); err != nil {
				r.Errors = append(r.Errors, fmt.Errorf("remove %s: %w", p, err))
			} else {
				r.Removed[p] = "left half-removed by an earlier gc"
			}
			continue
		}
		if !slotName(e.Name()) {
			continue
		}
		key, _, _ := strings.Cut(e.Name(), "-")
		fi, err := e.Info()
		if err != nil {
			continue
		}
		var why string
		switch age := time.Since(fi.ModTime()); {
		case gone[key] != "":
			why = "the workspace " + gone[key] + " is gone"
		case age > maxAge:
			why = fmt.Sprintf("unused for %d days", int(age.Hours()/24))
		default:
			continue
		}
		if err := removeCache(p); err != nil {
			if errors.Is(err, unix.EWOULDBLOCK) {
				r.Kept[p] = "a run is using it"
			} else {
				r.Errors = append(r.Errors, fmt.Errorf("remove the slot cache %s: %w", p, err))
			}
			continue
		}
		r.Removed[p] = why
	}
	return r
}

// removeCache takes cache's lock exclusively (EWOULDBLOCK: a job holds
// it), moves the cache aside under the lock, so that a job starting now
// makes a fresh one, and removes it.
func removeCache(cache string) error {
	f, err := os.OpenFile(filepath.Join(cache, cacheLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return err
	}
	trash := cache + gcSuffix + strconv.Itoa(os.Getpid())
	err = os.Rename(cache, trash)
	f.Close()
	if err != nil {
		return err
	}
	return fsutil.RemoveTree(trash)
}
