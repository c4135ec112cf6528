package warm

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// DefaultMaxBytes bounds the layers of all workspaces together, when
// neither `shadow gc --warm-max` nor SHADOW_WARM_MAX says otherwise.
const DefaultMaxBytes int64 = 2 << 30

// Removed is one workspace's layer (or a leftover of one) gc removed.
type Removed struct {
	Workspace string
	Dir       string
	Bytes     int64
	Why       string
}

// GC removes the layers of workspaces that no longer exist, leftovers of
// crashed updates and generations no run holds, then, while the layers
// together exceed maxBytes, the least recently used ones. A layer a live
// run holds, or one being updated, is never touched.
func GC(root string, maxBytes int64) ([]Removed, []error) {
	des, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	type live struct {
		kd    string
		m     *Meta
		used  time.Time
		bytes int64
	}
	var out []Removed
	var errs []error
	var keep []live
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		kd := filepath.Join(root, de.Name())
		rel, err := flock(filepath.Join(kd, updateLock), true, true)
		if err != nil {
			continue // being updated right now
		}
		m, merr := readMeta(kd)
		why := ""
		switch {
		case merr != nil:
			why = "no readable meta.json (an update that never finished)"
		case m.Format != Format:
			why = "an older layer format"
		case m.Updating:
			why = "an update in place was cut short"
		default:
			if _, err := os.Stat(m.Workspace); errors.Is(err, fs.ErrNotExist) {
				why = "its workspace no longer exists"
			}
		}
		if why != "" {
			if ok, err := removeAll(kd); err != nil {
				errs = append(errs, err)
			} else if ok {
				r := Removed{Dir: kd, Why: why}
				if m != nil {
					r.Workspace, r.Bytes = m.Workspace, m.Bytes
				}
				out = append(out, r)
			}
			rel()
			continue
		}
		removeUnused(kd, m.Generation)
		rel()
		used := m.BuiltAt
		if fi, err := os.Stat(filepath.Join(kd, usedName)); err == nil && fi.ModTime().After(used) {
			used = fi.ModTime()
		}
		keep = append(keep, live{kd: kd, m: m, used: used, bytes: m.Bytes})
	}
	var total int64
	for _, l := range keep {
		total += l.bytes
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].used.Before(keep[j].used) })
	for _, l := range keep {
		if total <= maxBytes {
			break
		}
		rel, err := flock(filepath.Join(l.kd, updateLock), true, true)
		if err != nil {
			continue
		}
		ok, err := removeAll(l.kd)
		rel()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			total -= l.bytes
			out = append(out, Removed{Workspace: l.m.Workspace, Dir: l.kd, Bytes: l.bytes, Why: "over the size cap, least recently used"})
		}
	}
	return out, errs
}

// removeAll removes a workspace's whole layer directory unless a run
// holds one of its generations (false, nil then). The caller holds its
// update lock. meta.json goes first, so a run starting meanwhile finds no
// layer rather than a half-removed one.
func removeAll(kd string) (bool, error) {
	des, _ := os.ReadDir(kd)
	var rels []func()
	defer func() {
		for _, r := range rels {
			r()
		}
	}()
	// Every lock but the update lock (the caller's) is a generation or a
	// harvest a live run holds shared or exclusive.
	for _, de := range des {
		if n := de.Name(); n != updateLock && strings.HasSuffix(n, ".lock") {
			r, err := flock(filepath.Join(kd, n), true, true)
			if err != nil {
				return false, nil
			}
			rels = append(rels, r)
		}
	}
	_ = os.Remove(filepath.Join(kd, metaName))
	for _, de := range des {
		if de.Name() == updateLock || strings.HasSuffix(de.Name(), ".lock") {
			continue
		}
		if err := fsutil.RemoveTree(filepath.Join(kd, de.Name())); err != nil {
			return false, err
		}
	}
	// The lock files last; a run that opened one before finds no
	// directory and no meta.json, and runs without a layer.
	for _, de := range des {
		if strings.HasSuffix(de.Name(), ".lock") {
			_ = os.Remove(filepath.Join(kd, de.Name()))
		}
	}
	_ = os.Remove(kd)
	return true, nil
}
