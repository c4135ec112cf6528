package snap

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// Policy is how long records live. A run is removed when it is older than
// MaxAge or not among the newest MaxRuns of its workspace; a running run is
// never removed (nor counted out). Zero fields disable that limit.
type Policy struct {
	MaxAge  time.Duration
	MaxRuns int
}

// DefaultPolicy keeps runs younger than 30 days, at most the newest 200 per
// workspace.
var DefaultPolicy = Policy{MaxAge: 30 * 24 * time.Hour, MaxRuns: 200}

// objectGrace protects objects written recently from the pruner: a
// recorder writes its objects before the record naming them.
const objectGrace = time.Hour

// PruneResult counts what Prune removed.
type PruneResult struct {
	Runs    []string // removed run ids, "workspace-folder/run"
	Objects int
	Bytes   int64
}

// Prune removes the records of every workspace that the policy expires,
// then the objects no remaining record names.
func (s Store) Prune(p Policy, now time.Time) (PruneResult, error) {
	var res PruneResult
	ents, err := os.ReadDir(filepath.Join(s.Root, "workspaces"))
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	var errs []error
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		r, err := pruneWorkspace(filepath.Join(s.Root, "workspaces", e.Name()), p, now)
		res.Runs = append(res.Runs, r.Runs...)
		res.Objects += r.Objects
		res.Bytes += r.Bytes
		if err != nil {
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

// PruneWorkspace is Prune for one workspace.
func (s Store) PruneWorkspace(ws string, p Policy, now time.Time) (PruneResult, error) {
	return pruneWorkspace(s.WorkspaceDir(ws), p, now)
}

func pruneWorkspace(wsDir string, p Policy, now time.Time) (PruneResult, error) {
	var res PruneResult
	runsDir := filepath.Join(wsDir, "runs")
	ids, err := listRunIDs(runsDir)
	if err != nil {
		return res, err
	}
	objs := Objects{Dir: filepath.Join(wsDir, "objects")}
	unlock, err := objs.lock(true)
	if err != nil {
		return res, err
	}
	defer unlock()
	var errs []error
	kept := 0
	for i := len(ids) - 1; i >= 0; i-- { // newest first
		dir := filepath.Join(runsDir, ids[i])
		ri := ReadRun(dir)
		if ri.State == StateRunning {
			kept++
			continue
		}
		old := p.MaxAge > 0 && !ri.StartedAt().IsZero() && now.Sub(ri.StartedAt()) > p.MaxAge
		over := p.MaxRuns > 0 && kept >= p.MaxRuns
		if !old && !over {
			kept++
			continue
		}
		// Rename first so a reader never sees half a run, then remove.
		trash := filepath.Join(runsDir, ".trash-"+ids[i])
		if err := os.Rename(dir, trash); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := fsutil.RemoveTree(trash); err != nil {
			errs = append(errs, err)
		}
		res.Runs = append(res.Runs, filepath.Base(wsDir)+"/"+ids[i])
	}
	// Leftovers of an interrupted prune.
	if ents, err := os.ReadDir(runsDir); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".trash-") {
				_ = fsutil.RemoveTree(filepath.Join(runsDir, e.Name()))
			}
		}
	}
	n, b, err := gcObjects(runsDir, objs, now)
	res.Objects, res.Bytes = n, b
	if err != nil {
		errs = append(errs, err)
	}
	return res, errors.Join(errs...)
}

// gcObjects removes objects no run record names and older than the grace
// period. The caller holds the exclusive lock.
func gcObjects(runsDir string, objs Objects, now time.Time) (int, int64, error) {
	used := map[string]bool{}
	ids, err := listRunIDs(runsDir)
	if err != nil {
		return 0, 0, err
	}
	for _, id := range ids {
		dir := filepath.Join(runsDir, id)
		if b, err := os.ReadFile(filepath.Join(dir, "originals.json")); err == nil {
			var m map[string]OrigRecord
			if json.Unmarshal(b, &m) != nil {
				return 0, 0, nil // unreadable: do not guess, keep everything
			}
			for _, o := range m {
				used[o.SHA256] = true
			}
		}
		hyps, _ := os.ReadDir(filepath.Join(dir, "hyps"))
		for _, h := range hyps {
			b, err := os.ReadFile(filepath.Join(dir, "hyps", h.Name(), "files.json"))
			if err != nil {
				continue
			}
			var rec HypRecord
			if json.Unmarshal(b, &rec) != nil {
				return 0, 0, nil
			}
			for _, f := range rec.Files {
				used[f.SHA256] = true
			}
		}
	}
	n, total := 0, int64(0)
	root := filepath.Join(objs.Dir, "sha256")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		sum := filepath.Base(filepath.Dir(p)) + d.Name()
		if used[sum] {
			return nil
		}
		fi, err := d.Info()
		if err != nil || now.Sub(fi.ModTime()) < objectGrace {
			return nil
		}
		if os.Remove(p) == nil {
			n++
			total += fi.Size()
		}
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return n, total, err
}
