package warm

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// Harvest is where a run keeps its baseline's upper dir until the run
// ends: beside the layer, so the overlay sandbox can rename the upper
// there and Update can hard-link its files into the layer (both need one
// filesystem). The run holds its lock; gc removes a harvest whose run is
// gone.
type Harvest struct {
	// Upper is the path to give as the baseline job's KeepDir; it exists
	// once the sandbox has moved the upper dir there.
	Upper string
	dir   string
	rel   func()
	// prov, provRoots: a home layer's provisional generation (Provisional)
	// until CommitHome makes it current.
	prov      string
	provRoots []string
	provFrom  int // the generation the run started with (0: none)
}

// NewHarvest makes a harvest directory for ws's layer under root.
func NewHarvest(root, ws string) (*Harvest, error) { return newHarvest(keyDir(root, ws)) }

func newHarvest(kd string) (*Harvest, error) {
	if err := os.MkdirAll(kd, 0o700); err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	dir, err := os.MkdirTemp(kd, keepPrefix)
	if err != nil {
		return nil, fmt.Errorf("warm layer: %w", err)
	}
	rel, err := flock(dir+".lock", true, true)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("warm layer: lock %s: %w", dir, err)
	}
	return &Harvest{Upper: filepath.Join(dir, "upper"), dir: dir, rel: rel}, nil
}

// Remove removes the harvest and lets its lock go.
func (h *Harvest) Remove() {
	if h == nil || h.rel == nil {
		return
	}
	_ = fsutil.RemoveTree(h.dir)
	_ = os.Remove(h.dir + ".lock")
	h.rel()
	h.rel = nil
}

// removeHarvest removes a harvest no live run holds.
func removeHarvest(dir string) {
	rel, err := flock(dir+".lock", true, true)
	if err != nil {
		return
	}
	defer rel()
	_ = fsutil.RemoveTree(dir)
	_ = os.Remove(dir + ".lock")
}
