package snap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// A --no-record run still needs somewhere for its hypotheses' output
// logs: a scratch dir norecord-RUN-XXXX (under $TMPDIR/shadow-UID, which
// every sandbox masks; older shadows made $TMPDIR/shadow-RUN-XXXX). Its owner.json names the
// process that made it, so `shadow gc` removes the scratch dirs whose
// process is gone (killed, or ended: the logs' paths are in that run's
// report, which nothing reads after it exits) and never one in use.

const scratchOwner = "owner.json"

// scratchRe matches the names NewScratch makes (and older shadows made,
// without owner.json: shadow-RUNID-RANDOM).
var scratchRe = regexp.MustCompile(`^(norecord|shadow)-\d{8}-\d{6}\.\d{3}-[0-9a-f]{6}-\d+$`)

// NewScratch makes the scratch dir of the unrecorded run id in parent.
func NewScratch(parent, id string) (string, error) {
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, "norecord-"+id+"-")
	if err != nil {
		return "", err
	}
	pid := os.Getpid()
	b, _ := json.Marshal(Meta{Run: id, PID: pid, PIDStart: pidStart(pid), Boot: bootID(), StartedAt: time.Now().UTC()})
	if err := WriteFileAtomic(filepath.Join(dir, scratchOwner), b); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// SweepScratch removes the scratch dirs in the dirs parents whose
// process is gone: those with an owner.json naming a dead process, and
// those of older shadows (no owner.json) untouched for a day. Only this
// user's dirs with NewScratch's names are looked at.
func SweepScratch(parents []string, remove func(string) error) (removed []string, errs []error) {
	for _, tmp := range parents {
		r, e := sweepScratch(tmp, remove)
		removed, errs = append(removed, r...), append(errs, e...)
	}
	return removed, errs
}

func sweepScratch(tmp string, remove func(string) error) (removed []string, errs []error) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return nil, nil
	}
	for _, e := range ents {
		if !e.IsDir() || !scratchRe.MatchString(e.Name()) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() || OwnedByMe(fi) != "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, scratchOwner))
		if err != nil {
			if time.Since(fi.ModTime()) < 24*time.Hour {
				continue
			}
		} else {
			var m Meta
			if json.Unmarshal(b, &m) != nil || recorderAlive(&m) {
				continue
			}
		}
		if err := remove(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errs
}
