package snap

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// plantFiles does what a hostile hypothesis that can write the state dir
// would: it stores its own content as an object and rewrites the files.json
// of the hypothesis "good" to name it, mode 0755.
func plantFiles(t *testing.T, s Store, ws, run string) {
	t.Helper()
	sum, err := s.Objects(ws).Put([]byte("PLANTED\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.RunDir(ws, run), "hyps", "good", "files.json")
	rec := HypRecord{Name: "good", Files: []FileRecord{{Path: "v.txt", Mode: "0755", Size: 8, SHA256: sum}}, Deletes: []string{}}
	b, _ := json.MarshalIndent(rec, "", "  ")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestRecordsChangedDuringTheRunAreWrittenBack(t *testing.T) {
	s := Store{Root: t.TempDir()}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644)
	hyps := []engine.Hypothesis{hyp("good", map[string]string{"v.txt": "good\n"}), hyp("evil", map[string]string{"v.txt": "evil\n"})}
	id := "20240101-000000-aaaaaa"
	r := newRun(t, s, ws, id, hyps...)
	if err := r.RecordInputs(hyps, nil, engine.ReadOriginals(ws, hyps)); err != nil {
		t.Fatal(err)
	}
	// "evil" runs and rewrites its sibling's record.
	plantFiles(t, s, ws, id)
	// While the run goes on, the changed record is refused...
	var re *RecordError
	if _, _, err := s.LoadHyp(ws, id, "good"); !errors.As(err, &re) {
		t.Fatalf("a changed files.json was loaded: %v", err)
	}
	// ...and when it ends, written back as the run made it.
	err := r.Finish(map[string]string{"schema": "x"})
	var te *TamperedError
	if !errors.As(err, &te) || len(te.Repaired) != 1 || te.Repaired[0] != "hyps/good/files.json" {
		t.Fatalf("Finish = %v", err)
	}
	a, err := s.ApplyHyp(ws, id, "good")
	if err != nil || len(a.Files) != 1 {
		t.Fatalf("apply: %+v %v", a, err)
	}
	b, _ := os.ReadFile(filepath.Join(ws, "v.txt"))
	fi, _ := os.Stat(filepath.Join(ws, "v.txt"))
	if string(b) != "good\n" || fi.Mode().Perm() != 0o640 {
		t.Fatalf("apply wrote %q mode %v, want the recorded good content", b, fi.Mode())
	}
}

func TestRecordsChangedAfterTheRunAreRefused(t *testing.T) {
	s := Store{Root: t.TempDir()}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644)
	hyps := []engine.Hypothesis{hyp("good", map[string]string{"v.txt": "good\n"})}
	id := "20240101-000000-aaaaaa"
	r := newRun(t, s, ws, id, hyps...)
	if err := r.RecordInputs(hyps, nil, engine.ReadOriginals(ws, hyps)); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(map[string]string{"schema": "x"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func()
		want string
	}{
		{"files.json", func() { plantFiles(t, s, ws, id) }, "SHA-256 differs"},
		{"integrity rewritten without the key", func() {
			plantFiles(t, s, ws, id)
			b, _ := os.ReadFile(filepath.Join(s.RunDir(ws, id), "hyps", "good", "files.json"))
			doc, _ := json.Marshal(integrityDoc{Schema: integritySchema, Run: id, Sealed: true, Files: map[string]string{"hyps/good/files.json": Hash(b)}})
			env, _ := json.Marshal(integrityEnvelope{MAC: MAC([]byte("guessed key"), integrityDomain, doc), Doc: doc})
			os.WriteFile(filepath.Join(s.RunDir(ws, id), integrityName), env, 0o600)
		}, "does not verify"},
		{"integrity removed", func() { os.Remove(filepath.Join(s.RunDir(ws, id), integrityName)) }, "has no integrity.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.edit()
			_, err := s.ApplyHyp(ws, id, "good")
			var re *RecordError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("apply = %v, want a RecordError saying %q", err, c.want)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "bad\n" {
				t.Fatalf("the checkout was written: %q", b)
			}
			if _, _, err := s.LoadHyp(ws, id, "good"); !errors.As(err, &re) {
				t.Fatalf("base resolution would use it: %v", err)
			}
		})
	}
}

// A hypothesis printing far more than the event log's budget leaves at
// most that budget (and one notice) in events.ndjson.
func TestEventLogOutputIsBounded(t *testing.T) {
	s := Store{Root: t.TempDir()}
	ws := t.TempDir()
	r := newRun(t, s, ws, "20240101-000000-aaaaaa", hyp("a", nil))
	r.MaxEventOutput = 1 << 20
	chunk := strings.Repeat("y", 64<<10)
	for i := 0; i < 200; i++ { // 12.5 MiB for a, a little for b
		if err := r.AppendEvent(engine.Event{Kind: engine.KindOutput, Hyp: "a", Text: chunk}); err != nil {
			t.Fatal(err)
		}
	}
	r.AppendEvent(engine.Event{Kind: engine.KindOutput, Hyp: "b", Text: "b's output\n"})
	r.ev.Close()
	fi, err := os.Stat(EventsPath(r.Dir))
	if err != nil || fi.Size() > 1<<20+64<<10 {
		t.Fatalf("event log is %d bytes: %v", fi.Size(), err)
	}
	evs, _ := ReadEvents(EventsPath(r.Dir))
	last := evs[len(evs)-1]
	if last.Hyp != "b" || !strings.Contains(evs[len(evs)-2].Text, "the rest is in its output log") {
		t.Fatalf("events: %d, last %+v", len(evs), last)
	}
}

// gc's sweep removes a --no-record scratch dir once its process is gone,
// and never one whose process lives.
func TestSweepScratch(t *testing.T) {
	tmp := t.TempDir()
	live, err := NewScratch(tmp, "20240101-000000.000-aaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	dead, _ := NewScratch(tmp, "20240101-000000.000-bbbbbb")
	b, _ := json.Marshal(Meta{PID: 1 << 30})
	os.WriteFile(filepath.Join(dead, scratchOwner), b, 0o600)
	other := filepath.Join(tmp, "shadow-demo-123")
	os.Mkdir(other, 0o700)
	removed, errs := SweepScratch([]string{tmp}, os.RemoveAll)
	if len(errs) > 0 || len(removed) != 1 || removed[0] != dead {
		t.Fatalf("removed %v %v", removed, errs)
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("%s removed", d)
		}
	}
}

// A report changed after the run is flagged by ReadRun (show prints the
// warning first); the one the run wrote is not.
func TestChangedReportIsFlagged(t *testing.T) {
	s := Store{Root: t.TempDir()}
	ws := t.TempDir()
	hyps := []engine.Hypothesis{hyp("a", nil)}
	id := "20240101-000000-aaaaaa"
	r := newRun(t, s, ws, id, hyps...)
	r.RecordInputs(hyps, nil, engine.ReadOriginals(ws, hyps))
	if err := r.Finish(engine.Report{Schema: engine.ReportSchema, Run: id}); err != nil {
		t.Fatal(err)
	}
	if ri := ReadRun(s.RunDir(ws, id)); ri.Unverified != "" || ri.Report == nil {
		t.Fatalf("the run's own report: %q", ri.Unverified)
	}
	b, _ := json.Marshal(engine.Report{Schema: engine.ReportSchema, Run: id, Command: []string{"planted"}})
	os.WriteFile(filepath.Join(s.RunDir(ws, id), "report.json"), b, 0o600)
	if ri := ReadRun(s.RunDir(ws, id)); !strings.Contains(ri.Unverified, "report.json") {
		t.Fatalf("a changed report is not flagged: %q", ri.Unverified)
	}
}
