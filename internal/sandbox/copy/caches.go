//go:build linux || darwin

package copy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// Copy mode once kept each slot's private caches (CacheDir/KEY-N: the
// GOCACHE, XDG_CACHE_HOME and npm cache of sealed commands) from run to
// run, whoever wrote them, so one run's candidate could leave a build or
// test-result entry a later run's baseline read. Each job's caches are
// its own now, seeded from the home layer and removed with the job
// (seal.go; docs/modes.md "The home layer"): what is left under CacheDir
// is an older shadow's, and `shadow gc` removes all of it. An older
// shadow still running holds its slot's cache with a shared flock(2) on
// cacheLock inside it; gc needs the lock exclusively, so a cache in use
// is kept.

const cacheLock = ".shadow-slot.lock"

// gcSuffix names a cache gc has moved aside and is removing.
const gcSuffix = ".gc-"

// CacheGC is what GCCaches did: each dir removed or kept, and why.
type CacheGC struct {
	Removed, Kept map[string]string
	Errors        []error
}

// GCCaches removes every slot cache left under dir, except those a
// running job holds.
func GCCaches(dir string) CacheGC {
	r := CacheGC{Removed: map[string]string{}, Kept: map[string]string{}}
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
		if err := removeCache(p); err != nil {
			if errors.Is(err, unix.EWOULDBLOCK) {
				r.Kept[p] = "a run is using it"
			} else {
				r.Errors = append(r.Errors, fmt.Errorf("remove the slot cache %s: %w", p, err))
			}
			continue
		}
		r.Removed[p] = "no longer used: each job's caches are its own"
	}
	_ = os.Remove(dir) // empty now, unless a run still holds one
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
