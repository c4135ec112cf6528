package remote

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSourceFilesAreTrackedPlusUntrackedNotIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	state := filepath.Join(ws, "state") // shadow's state inside the checkout
	for p, c := range map[string]string{".gitignore": "build/\n", "a.txt": "a", "src/b.go": "b", "build/out": "o", "new.txt": "n", "state/run.json": "{}"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644)
	}
	git := func(args ...string) {
		if out, err := exec.Command("git", append([]string{"-C", ws, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".gitignore", "a.txt", "src/b.go")
	git("commit", "-q", "-m", "x")
	got, err := sourceFiles(ws, []string{state})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".git", ".gitignore", "a.txt", "new.txt", "src/b.go"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Deleted here: still listed by the index or the last manifest, so
	// rsync's --delete-missing-args removes it there.
	os.Remove(filepath.Join(ws, "new.txt"))
	now, _ := sourceFiles(ws, []string{state})
	list := syncList(ws, now, want)
	if !reflect.DeepEqual(list, []string{".git", ".gitignore", "a.txt", "src/b.go", "new.txt"}) {
		t.Fatalf("sync list %q", list)
	}
	// A file of the last sync that became ignored but still exists here
	// is not deleted there.
	if l := syncList(ws, now, []string{"build/out"}); len(l) != len(now) {
		t.Fatalf("an existing file was listed for deletion: %q", l)
	}
}

func TestManifestRoundTrip(t *testing.T) {
	m := manifestPath(t.TempDir(), "n1", "/w")
	if m.read() != nil {
		t.Fatal("a missing manifest is not empty")
	}
	files := []string{"a b", "c/d", "ü"}
	if err := m.write(files); err != nil {
		t.Fatal(err)
	}
	if got := m.read(); !reflect.DeepEqual(got, files) {
		t.Fatalf("got %q", got)
	}
}
