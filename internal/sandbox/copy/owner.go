//go:build linux || darwin

package copy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
)

// ownerFile lies beside the copy (in the copy's own directory, never in
// the tree the command sees) and names the processes that use it.
const ownerFile = "owner.json"

// copyPrefix names every copy directory under a base, so gc can tell them
// from the overlay sandboxes (hyp-, probe-) and frozen sources that share
// the state dir.
const copyPrefix = "copy-"

type owner struct {
	Boot      string         `json:"boot"`
	Workspace string         `json:"workspace"`
	Shadow    reaper.ProcID  `json:"shadow"` // pid and start time: a pid alone may have been recycled
	Helper    *reaper.ProcID `json:"helper,omitempty"`
}

func (o owner) write(dir string) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ownerFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ownerFile))
}

// inUse says why the copy in dir must stay, or "".
func inUse(dir string, minAge time.Duration) string {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		// The owner file is written right after the directory is made:
		// without one, a run may be between the two.
		if fi, err := os.Lstat(dir); err == nil && time.Since(fi.ModTime()) < minAge {
			return "too recent (a run may be preparing it)"
		}
		return ""
	}
	var o owner
	if json.Unmarshal(b, &o) != nil {
		return ""
	}
	if o.Boot != "" && o.Boot != reaper.BootID() {
		return "" // made before the last reboot: nothing of it runs
	}
	if o.Shadow.Alive() {
		return "in use by shadow (pid " + strconv.Itoa(o.Shadow.PID) + ")"
	}
	if o.Helper != nil && o.Helper.Alive() {
		return "its helper (pid " + strconv.Itoa(o.Helper.PID) + ") is still ending the command's processes"
	}
	return ""
}

// GCResult is what GC did under one base.
type GCResult struct {
	Removed []string
	Kept    map[string]string // dir -> why
	Errors  []error
}

// GC removes the copies under base whose shadow and helper are both gone
// (a shadow killed with SIGKILL leaves its copies; its helpers end the
// commands' processes on its death and exit). Copies younger than minAge
// without an owner file are left for next time.
func GC(base string, minAge time.Duration) GCResult {
	r := GCResult{Kept: map[string]string{}}
	ents, err := os.ReadDir(base)
	if err != nil {
		return r
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), copyPrefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		if why := inUse(dir, minAge); why != "" {
			r.Kept[dir] = why
			continue
		}
		if err := fsutil.RemoveTree(dir); err != nil {
			r.Errors = append(r.Errors, fmt.Errorf("remove the leftover copy %s: %w", dir, err))
			continue
		}
		r.Removed = append(r.Removed, dir)
	}
	return r
}
