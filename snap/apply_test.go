package snap

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

func TestApplyHyp(t *testing.T) {
	s := Store{Root: t.TempDir()}
	ws := t.TempDir()
	v := filepath.Join(ws, "v.txt")
	os.WriteFile(v, []byte("bad\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "old.txt"), []byte("x"), 0o644)
	hyps := []engine.Hypothesis{{Name: "baseline"}, hyp("fix", map[string]string{"v.txt": "good\n"}, "old.txt")}
	record := func(id string) {
		r := newRun(t, s, ws, id, hyps...)
		defer r.ev.Close()
		if err := r.RecordInputs(hyps, nil, engine.ReadOriginals(ws, hyps)); err != nil {
			t.Fatal(err)
		}
	}
	record("20240101-000000-aaaaaa")
	record("20240101-000001-bbbbbb")

	if a, err := s.ApplyHyp(ws, "20240101-000000-aaaaaa", "baseline"); err != nil || !a.Baseline {
		t.Errorf("baseline: %+v %v", a, err)
	}
	a, err := s.ApplyHyp(ws, "20240101-000000-aaaaaa", "fix")
	if err != nil || len(a.Files) != 2 || a.Already {
		t.Fatalf("fix: %+v %v", a, err)
	}
	if b, _ := os.ReadFile(v); string(b) != "good\n" {
		t.Errorf("v.txt %q", b)
	}
	if fi, err := os.Stat(v); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode not kept: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(ws, "old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt not deleted")
	}
	// Applying it again finds it already there, though v.txt changed.
	if a, err := s.ApplyHyp(ws, "20240101-000001-bbbbbb", "fix"); err != nil || !a.Already {
		t.Errorf("again: %+v %v", a, err)
	}
	// A change since the run started is refused, nothing written.
	os.WriteFile(v, []byte("edited\n"), 0o644)
	_, err = s.ApplyHyp(ws, "20240101-000001-bbbbbb", "fix")
	var ce *engine.ConflictError
	if !errors.As(err, &ce) || len(ce.Paths) == 0 {
		t.Errorf("conflict: %v", err)
	}
	if b, _ := os.ReadFile(v); string(b) != "edited\n" {
		t.Errorf("a conflict wrote v.txt: %q", b)
	}
	// No originals recorded: refused.
	os.Remove(filepath.Join(s.RunDir(ws, "20240101-000001-bbbbbb"), "originals.json"))
	if _, err := s.ApplyHyp(ws, "20240101-000001-bbbbbb", "fix"); err == nil || errors.As(err, &ce) {
		t.Errorf("no originals: %v", err)
	}
	if _, err := s.ApplyHyp(ws, "20240101-000001-bbbbbb", "nope"); err == nil {
		t.Errorf("no such hypothesis applied")
	}
}
