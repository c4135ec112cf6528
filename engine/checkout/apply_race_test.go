package checkout

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine/spec"
)

// An edit made to a target while apply writes (after
// the up-front check passed) is not overwritten: apply stops at the first
// changed target and says what it wrote and what not.
func TestApplyStopsAtTargetChangedWhileWriting(t *testing.T) {
	ws := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt", "c.txt", "gone.txt"} {
		if err := os.WriteFile(filepath.Join(ws, n), []byte("old "+n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := spec.Hypothesis{Name: "fix", Files: []spec.File{
		{Path: "a.txt", Content: []byte("new a\n"), Mode: 0o644},
		{Path: "b.txt", Content: []byte("new b\n"), Mode: 0o644},
		{Path: "c.txt", Content: []byte("new c\n"), Mode: 0o644},
	}, Deletes: []string{"gone.txt"}}
	orig := ReadOriginals(ws, []spec.Hypothesis{h})

	// The user saves b.txt between apply's check and b's rename.
	beforeRename = func(p string) {
		if p == "b.txt" {
			os.WriteFile(filepath.Join(ws, "b.txt"), []byte("the user's edit\n"), 0o644)
		}
	}
	t.Cleanup(func() { beforeRename = nil })
	applied, err := ApplyHypothesis(ws, h, orig)
	var se *StoppedError
	if !errors.As(err, &se) {
		t.Fatalf("apply over a target changed while writing: err %v, want a StoppedError", err)
	}
	if se.Changed != "b.txt" || !reflect.DeepEqual(se.Written, []string{"a.txt"}) || !reflect.DeepEqual(se.NotWritten, []string{"b.txt", "c.txt", "gone.txt"}) {
		t.Errorf("stopped: %+v", se)
	}
	if !reflect.DeepEqual(applied, []string{"a.txt"}) {
		t.Errorf("applied %v, want [a.txt]", applied)
	}
	for n, want := range map[string]string{"a.txt": "new a\n", "b.txt": "the user's edit\n", "c.txt": "old c.txt\n", "gone.txt": "old gone.txt\n"} {
		if b, _ := os.ReadFile(filepath.Join(ws, n)); string(b) != want {
			t.Errorf("%s holds %q, want %q", n, b, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(ws, ".*.tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, w := range []string{"b.txt changed", "written: a.txt", "not written: b.txt, c.txt, gone.txt"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}

	// A delete whose target changed meanwhile is not performed either.
	ws2 := t.TempDir()
	os.WriteFile(filepath.Join(ws2, "gone.txt"), []byte("x\n"), 0o644)
	h2 := spec.Hypothesis{Name: "rm", Files: []spec.File{{Path: "n.txt", Content: []byte("n\n"), Mode: 0o644}}, Deletes: []string{"gone.txt"}}
	orig2 := ReadOriginals(ws2, []spec.Hypothesis{h2})
	beforeRename = func(string) { os.WriteFile(filepath.Join(ws2, "gone.txt"), []byte("kept\n"), 0o644) }
	_, err = ApplyHypothesis(ws2, h2, orig2)
	if !errors.As(err, &se) || se.Changed != "gone.txt" {
		t.Errorf("delete of a changed target: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws2, "gone.txt")); string(b) != "kept\n" {
		t.Errorf("gone.txt removed or overwritten: %q", b)
	}
}
