package warm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Layer is a generation of a workspace's layer held for one run: it is
// not removed until Release.
type Layer struct {
	Dir  string // the directory to stack just above the workspace
	Meta Meta
	rel  func()
}

// Release lets the generation go (a newer one may replace it).
func (l *Layer) Release() {
	if l != nil && l.rel != nil {
		l.rel()
		l.rel = nil
	}
}

// Skipped says why no layer was stacked: there is none yet, or it was
// dropped (package doc: "When it is not used").
type Skipped struct{ Reason string }

func (e *Skipped) Error() string { return e.Reason }

// Acquire holds the current generation of ws's layer for a run, after
// checking that it still fits the checkout. The error is a *Skipped when
// there is no usable layer (a normal answer), another error when the
// layer could not be read.
func Acquire(root, ws string) (*Layer, error) {
	kd := keyDir(root, ws)
	for try := 0; try < 3; try++ {
		m, err := readMeta(kd)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Skipped{"no layer yet: the first run's baseline makes it"}
		}
		if err != nil {
			return nil, &Skipped{fmt.Sprintf("unreadable, rebuilt by the next baseline: %v", err)}
		}
		if m.Format != Format {
			return nil, &Skipped{fmt.Sprintf("dropped: format %d, this shadow writes %d (rebuilt by the next baseline)", m.Format, Format)}
		}
		if m.Workspace != ws {
			return nil, &Skipped{fmt.Sprintf("dropped: built for %s", m.Workspace)}
		}
		if m.Updating {
			return nil, &Skipped{"being updated by another run's baseline (or an update was cut short)"}
		}
		rel, err := flock(genLock(kd, m.Generation), false, false)
		if err != nil {
			return nil, fmt.Errorf("warm layer: lock generation %d in %s: %w", m.Generation, kd, err)
		}
		dir := filepath.Join(kd, genName(m.Generation))
		if now, err := readMeta(kd); err != nil || now.Generation != m.Generation || now.Updating {
			// Changed in place or replaced between reading meta.json and
			// taking the lock: look again.
			rel()
			continue
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			rel()
			continue
		}
		_, why, err := checkRoots(ws, dir, m.Roots, true)
		if err != nil {
			rel()
			return nil, fmt.Errorf("warm layer: %w", err)
		}
		if why != "" {
			rel()
			return nil, &Skipped{"dropped: " + why + " (rebuilt by the next baseline)"}
		}
		now := time.Now()
		if err := os.Chtimes(filepath.Join(kd, usedName), now, now); errors.Is(err, fs.ErrNotExist) {
			_ = os.WriteFile(filepath.Join(kd, usedName), nil, 0o600)
		}
		return &Layer{Dir: dir, Meta: *m, rel: rel}, nil
	}
	return nil, &Skipped{"replaced while this run started (used by the next one)"}
}
