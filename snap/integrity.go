package snap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// A run's records are what `shadow apply` writes into the checkout and
// what a later run builds on (a spec's "base"), so they must be the ones
// the run wrote. integrity.json in the run's folder lists the SHA-256 of
// each record (every hypothesis's files.json, originals.json and, once the
// run ended, report.json), under a MAC made with the workspace's
// integrity key (key.go). The files' objects are content-addressed and
// checked by Objects.Get, so a verified files.json pins every byte and
// mode apply writes. Readers (LoadHyp, LoadOriginals, and through them
// apply, show and base resolution) refuse a record that does not match.
//
// It is written twice: after the inputs are recorded (so a run that is
// killed can still be applied and built on), and by Finish, after every
// hypothesis's command has ended, from the bytes the run holds in memory:
// a record a command changed during the run (in copy or in-place mode it
// runs as the user) is written back as the run made it and named in
// "repaired".
const integrityName = "integrity.json"

const integritySchema = "shadow.integrity/v1"

// integrityDomain separates these MACs from the journals'.
const integrityDomain = "shadow.run-integrity"

type integrityDoc struct {
	Schema string `json:"schema"`
	Run    string `json:"run"`
	// Sealed: written by Finish, after every command of the run ended.
	Sealed bool `json:"sealed"`
	// Files maps each record (relative to the run's folder) to its
	// SHA-256.
	Files map[string]string `json:"files"`
	// Repaired lists the records that were changed during the run and
	// written back from the run's memory.
	Repaired []string `json:"repaired,omitempty"`
}

type integrityEnvelope struct {
	MAC string          `json:"mac"`
	Doc json.RawMessage `json:"integrity"`
}

// RecordError is a run record that cannot be trusted: not what the run
// wrote, or without the integrity record that says so. It is never used.
type RecordError struct {
	Run, Record string
	Msg         string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("run %s: refusing its record %s: %s. It is not used (nothing was applied or built on it); "+
		"rerun the hypothesis, or remove the run's folder", e.Run, e.Record, e.Msg)
}

// writeRecord writes one record of the run (rel to its folder) and keeps
// its bytes, so integrity can be sealed from memory.
func (r *Run) writeRecord(rel string, b []byte) error {
	if err := WriteFileAtomic(filepath.Join(r.Dir, filepath.FromSlash(rel)), b); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.records == nil {
		r.records = map[string][]byte{}
	}
	r.records[rel] = b
	return nil
}

// writeIntegrity writes integrity.json for the records written so far.
// When sealing, each record on disk is first compared with the run's
// memory and written back if it differs; the repaired ones are returned.
func (r *Run) writeIntegrity(seal bool) (repaired []string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.key) == 0 {
		return nil, errors.New("no integrity key")
	}
	doc := integrityDoc{Schema: integritySchema, Run: r.ID, Sealed: seal, Files: map[string]string{}}
	names := make([]string, 0, len(r.records))
	for rel := range r.records {
		names = append(names, rel)
	}
	sort.Strings(names)
	for _, rel := range names {
		b := r.records[rel]
		if seal {
			p := filepath.Join(r.Dir, filepath.FromSlash(rel))
			if disk, err := os.ReadFile(p); err != nil || !bytes.Equal(disk, b) {
				if err := WriteFileAtomic(p, b); err != nil {
					return repaired, fmt.Errorf("write back %s: %w", rel, err)
				}
				repaired = append(repaired, rel)
			}
		}
		doc.Files[rel] = Hash(b)
	}
	doc.Repaired = repaired
	body, err := json.Marshal(doc)
	if err != nil {
		return repaired, err
	}
	env, err := json.Marshal(integrityEnvelope{MAC: MAC(r.key, integrityDomain, body), Doc: body})
	if err != nil {
		return repaired, err
	}
	return repaired, WriteFileAtomic(filepath.Join(r.Dir, integrityName), env)
}

// TamperedError is what Finish reports when records were changed during
// the run: they have been written back as the run made them.
type TamperedError struct {
	Run      string
	Repaired []string
}

func (e *TamperedError) Error() string {
	return fmt.Sprintf("run %s: %d record(s) were changed during the run by something other than shadow (%v): written back as the run made them",
		e.Run, len(e.Repaired), e.Repaired)
}

// readVerified reads the record rel of run and checks it against the
// run's integrity record.
func (s Store) readVerified(ws, run, rel string) ([]byte, error) {
	return readVerifiedIn(s.WorkspaceDir(ws), run, rel)
}

// readVerifiedIn is readVerified for the run in the workspace folder
// wsDir.
func readVerifiedIn(wsDir, run, rel string) ([]byte, error) {
	dir := filepath.Join(wsDir, "runs", run)
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) error {
		return &RecordError{Run: run, Record: rel, Msg: fmt.Sprintf(format, a...)}
	}
	eb, err := os.ReadFile(filepath.Join(dir, integrityName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fail("the run has no %s (recorded by an older shadow, or its recorder died before recording its inputs), so it cannot be verified", integrityName)
	}
	if err != nil {
		return nil, fail("%v", err)
	}
	var env integrityEnvelope
	if err := json.Unmarshal(eb, &env); err != nil || len(env.Doc) == 0 {
		return nil, fail("its %s is unreadable", integrityName)
	}
	key, err := LoadKey(wsDir, false)
	if err != nil {
		return nil, fail("the workspace's integrity key cannot be read (%v; the next run replaces a damaged one)", err)
	}
	if !VerifyMAC(key, integrityDomain, env.Doc, env.MAC) {
		return nil, fail("its %s does not verify (written by something other than shadow, or changed%s)", integrityName, ReplacedKeyNote(wsDir))
	}
	var doc integrityDoc
	if err := json.Unmarshal(env.Doc, &doc); err != nil || doc.Schema != integritySchema || doc.Run != run {
		return nil, fail("its %s is for another run or schema", integrityName)
	}
	want, ok := doc.Files[rel]
	if !ok {
		return nil, fail("it is not one of the records the run wrote")
	}
	if Hash(b) != want {
		return nil, fail("it is not what the run wrote (its SHA-256 differs from the one in %s)", integrityName)
	}
	return b, nil
}

// VerifyReport reads run's report.json if the integrity record vouches
// for it: nil and an error otherwise (no report yet is fs.ErrNotExist).
func (s Store) VerifyReport(ws, run string) ([]byte, error) {
	return s.readVerified(ws, run, "report.json")
}
