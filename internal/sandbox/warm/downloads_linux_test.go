package warm

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestAddHomeMergesAndKeepsTheLayerCold: checked downloads are added to
// the current generation, in place while no run holds it and beside it
// while one does (the holder keeps seeing its own), and they add no
// command: a layer cold for a command stays cold, so the next run of it
// still runs its baseline first.
func TestAddHomeMergesAndKeepsTheLayerCold(t *testing.T) {
	for _, kind := range []HomeKind{HomeOverlay, HomeCopy} {
		t.Run(string(kind), func(t *testing.T) {
			root, ws := t.TempDir(), t.TempDir()
			cache := "/home/u/go/pkg/mod"
			if kind == HomeCopy {
				cache = "/npm"
			}
			base := t.TempDir()
			write(t, base, relAbs(cache)+"/from-baseline", "b")
			if _, err := UpdateHome(root, ws, kind, base, []string{cache}, "run1", "go"); err != nil {
				t.Fatal(err)
			}
			held, err := AcquireHome(root, ws, kind)
			if err != nil {
				t.Fatal(err)
			}
			dl := t.TempDir()
			write(t, dl, relAbs(cache)+"/cache/download/m/@v/v1.0.0.zip", "zip")
			m, err := AddHome(root, ws, kind, dl, []string{cache}, "run2")
			if err != nil || m == nil || m.Generation != 2 {
				t.Fatalf("AddHome beside a held generation: %+v, %v", m, err)
			}
			if got := files(t, held.Dir); !reflect.DeepEqual(got, []string{relAbs(cache) + "/from-baseline"}) {
				t.Errorf("the held generation changed: %v", got)
			}
			held.Release()
			dl2 := t.TempDir()
			write(t, dl2, relAbs(cache)+"/cache/download/m/@v/v1.0.0.mod", "mod")
			if m, err = AddHome(root, ws, kind, dl2, []string{cache}, "run3"); err != nil || m.Generation != 3 {
				t.Fatalf("AddHome in place: %+v, %v", m, err)
			}
			l, err := AcquireHome(root, ws, kind)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			want := []string{relAbs(cache) + "/cache/download/m/@v/v1.0.0.mod", relAbs(cache) + "/cache/download/m/@v/v1.0.0.zip", relAbs(cache) + "/from-baseline"}
			if got := files(t, l.Dir); !reflect.DeepEqual(got, want) {
				t.Errorf("layer holds %v, want %v", got, want)
			}
			if l.Cold("go") || !l.Cold("npm") {
				t.Errorf("tools %v: want go's only", l.Meta.Tools)
			}
			// A layer made of downloads alone is cold for every command.
			ws2 := t.TempDir()
			if _, err := AddHome(root, ws2, kind, dl, []string{cache}, "run4"); err != nil {
				t.Fatal(err)
			}
			l2, err := AcquireHome(root, ws2, kind)
			if err != nil {
				t.Fatal(err)
			}
			defer l2.Release()
			if !l2.Cold("go") || len(files(t, filepath.Join(l2.Dir))) != 1 {
				t.Errorf("a layer of downloads alone: tools %v, files %v", l2.Meta.Tools, files(t, l2.Dir))
			}
		})
	}
}
