package snap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// A damaged integrity key (garbage in it, a wrong mode, a directory in
// its place) made every later run fail to record until it was removed by
// hand. Now the run that finds it moves it aside, records under a new
// key and says so (KeyReplaced); the runs recorded before are refused,
// saying the key was replaced; the new run verifies.
func TestDamagedKeyIsReplacedAndOldRecordsRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(p string)
	}{
		{"garbage", func(p string) { os.WriteFile(p, []byte("not hex at all\n"), 0o600) }},
		{"truncated", func(p string) { os.Truncate(p, 10) }},
		{"mode 0644", func(p string) { os.Chmod(p, 0o644) }},
		{"a directory", func(p string) { os.Remove(p); os.Mkdir(p, 0o700) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Store{Root: t.TempDir()}
			ws := t.TempDir()
			os.WriteFile(filepath.Join(ws, "v.txt"), []byte("bad\n"), 0o644)
			hyps := []engine.Hypothesis{hyp("good", map[string]string{"v.txt": "good\n"})}
			record := func(id string) *Run {
				r := newRun(t, s, ws, id, hyps...)
				if err := r.RecordInputs(hyps, nil, engine.ReadOriginals(ws, hyps)); err != nil {
					t.Fatal(err)
				}
				if err := r.Finish(map[string]string{"schema": "x"}); err != nil {
					t.Fatal(err)
				}
				return r
			}
			old := "20240101-000000-aaaaaa"
			if r := record(old); r.KeyReplaced != "" {
				t.Fatalf("a fresh key was replaced: %s", r.KeyReplaced)
			}
			c.damage(filepath.Join(s.WorkspaceDir(ws), KeyName))

			fresh := "20240101-000001-bbbbbb"
			r := record(fresh)
			if r.KeyReplaced == "" || !strings.Contains(r.KeyReplaced, KeyName+".damaged-") {
				t.Fatalf("KeyReplaced = %q", r.KeyReplaced)
			}
			if _, err := os.Lstat(r.KeyReplaced); err != nil {
				t.Errorf("the damaged key was not kept aside: %v", err)
			}
			if _, _, err := s.LoadHyp(ws, fresh, "good"); err != nil {
				t.Errorf("the new run does not verify: %v", err)
			}
			_, _, err := s.LoadHyp(ws, old, "good")
			var re *RecordError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), "replaced") {
				t.Errorf("the old run: %v, want a refusal saying the key was replaced", err)
			}
			// A second run finds the new key sound.
			if r := record("20240101-000002-cccccc"); r.KeyReplaced != "" {
				t.Errorf("the new key was replaced again: %s", r.KeyReplaced)
			}
		})
	}
}
