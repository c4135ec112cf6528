package snap

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/shadow-dev/shadow/engine"
)

// HypRecord is hyps/NAME/files.json: the complete file set a hypothesis ran
// with, after its base, edits, deletes and patch were applied. A hypothesis
// built on a base therefore records the base's files too, and a chain of
// bases resolves one link at a time.
type HypRecord struct {
	Name string `json:"name"`
	// Base is the spec's "base" as written (e.g. "@last/fix"); BaseRun is
	// the RUN/HYP it named when the run started.
	Base    string       `json:"base,omitempty"`
	BaseRun string       `json:"base_run,omitempty"`
	Files   []FileRecord `json:"files"`
	Deletes []string     `json:"deletes"`
}

// FileRecord is one file of a hypothesis, its bytes in the object store.
type FileRecord struct {
	Path   string `json:"path"`
	Mode   string `json:"mode"` // octal permission, e.g. "0644"
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// OrigRecord is what a checkout path held when the run started (a path
// some hypothesis writes or deletes): the "before" of its diff and what
// `shadow apply` compares the checkout with.
type OrigRecord struct {
	Exists bool   `json:"exists"`
	Dir    bool   `json:"dir,omitempty"`
	Link   bool   `json:"link,omitempty"`
	Mode   string `json:"mode,omitempty"`
	SHA256 string `json:"sha256,omitempty"` // content, or a symlink's target
}

// BaseRef is how one hypothesis's base was written and what it named.
type BaseRef struct{ Ref, Resolved string }

// RecordInputs stores each hypothesis's files and deletes (hyps/NAME/
// files.json) and the checkout's originals of the paths they touch
// (originals.json), before anything runs. bases is keyed by hypothesis
// name. The objects are written under the shared lock, so a concurrent
// prune cannot remove one between its write and the record naming it.
func (r *Run) RecordInputs(hyps []engine.Hypothesis, bases map[string]BaseRef, orig map[string]engine.FileState) error {
	unlock, err := r.objs.lock(false)
	if err != nil {
		return err
	}
	defer unlock()
	for _, h := range hyps {
		rec := HypRecord{Name: h.Name, Files: []FileRecord{}, Deletes: append([]string{}, h.Deletes...)}
		if b, ok := bases[h.Name]; ok {
			rec.Base, rec.BaseRun = b.Ref, b.Resolved
		}
		for _, f := range h.Files {
			sum, err := r.objs.Put(f.Content)
			if err != nil {
				return err
			}
			rec.Files = append(rec.Files, FileRecord{Path: f.Path, Mode: fmtMode(f.Mode), Size: int64(len(f.Content)), SHA256: sum})
		}
		dir := filepath.Join(r.Dir, "hyps", h.Name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		b, _ := json.MarshalIndent(rec, "", "  ")
		if err := r.writeRecord("hyps/"+h.Name+"/files.json", b); err != nil {
			return err
		}
	}
	origs := map[string]OrigRecord{}
	for p, st := range orig {
		o := OrigRecord{Exists: st.Exists, Dir: st.Dir, Link: st.Link}
		if st.Exists {
			o.Mode = fmtMode(st.Mode)
		}
		if st.Exists && !st.Dir {
			sum, err := r.objs.Put(st.Content)
			if err != nil {
				return err
			}
			o.SHA256 = sum
		}
		origs[p] = o
	}
	b, _ := json.MarshalIndent(origs, "", "  ")
	if err := r.writeRecord("originals.json", b); err != nil {
		return err
	}
	_, err = r.writeIntegrity(false)
	return err
}

func fmtMode(m os.FileMode) string { return fmt.Sprintf("%04o", uint32(m.Perm())) }

func parseMode(s string) os.FileMode {
	v, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0o644
	}
	return os.FileMode(v).Perm()
}

// HypRecord reads a recorded hypothesis's manifest, verified against the
// run's integrity record (a *RecordError when it does not match).
func (s Store) HypRecord(ws, run, hyp string) (*HypRecord, error) {
	b, err := s.readVerified(ws, run, "hyps/"+hyp+"/files.json")
	if err != nil {
		return nil, err
	}
	var rec HypRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("run %s, hypothesis %s: unreadable record: %v", run, hyp, err)
	}
	return &rec, nil
}

// LoadHyp returns a recorded hypothesis with its files' contents.
func (s Store) LoadHyp(ws, run, hyp string) (engine.Hypothesis, *HypRecord, error) {
	rec, err := s.HypRecord(ws, run, hyp)
	if err != nil {
		return engine.Hypothesis{}, nil, err
	}
	objs := s.Objects(ws)
	h := engine.Hypothesis{Name: rec.Name, Deletes: append([]string{}, rec.Deletes...)}
	for _, f := range rec.Files {
		b, err := objs.Get(f.SHA256)
		if err != nil {
			return engine.Hypothesis{}, nil, fmt.Errorf("run %s, hypothesis %s, %s: %v", run, hyp, f.Path, err)
		}
		h.Files = append(h.Files, engine.File{Path: f.Path, Content: b, Mode: parseMode(f.Mode)})
	}
	sort.Slice(h.Files, func(i, j int) bool { return h.Files[i].Path < h.Files[j].Path })
	sort.Strings(h.Deletes)
	return h, rec, nil
}

// LoadOriginals returns the checkout state recorded at the run's start for
// the paths its hypotheses touch.
func (s Store) LoadOriginals(ws, run string) (map[string]engine.FileState, error) {
	b, err := s.readVerified(ws, run, "originals.json")
	if err != nil {
		return nil, err
	}
	var recs map[string]OrigRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("run %s: unreadable originals: %v", run, err)
	}
	objs := s.Objects(ws)
	out := make(map[string]engine.FileState, len(recs))
	for p, o := range recs {
		st := engine.FileState{Exists: o.Exists, Dir: o.Dir, Link: o.Link}
		if o.Exists {
			st.Mode = parseMode(o.Mode)
		}
		if o.SHA256 != "" {
			if st.Content, err = objs.Get(o.SHA256); err != nil {
				return nil, fmt.Errorf("run %s, original of %s: %v", run, p, err)
			}
		}
		out[p] = st
	}
	return out, nil
}
