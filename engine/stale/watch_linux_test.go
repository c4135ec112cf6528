//go:build linux

package stale

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine/checkout"
	"github.com/shadow-dev/shadow/engine/spec"
)

// staleWS is a checkout for the watch tests: with git (a .gitignore
// leaving out target/) or without.
type staleWS struct {
	t   *testing.T
	dir string
}

func newStaleWS(t *testing.T, useGit bool, files map[string]string) *staleWS {
	t.Helper()
	w := &staleWS{t: t, dir: t.TempDir()}
	for p, c := range files {
		w.write(p, c)
	}
	if useGit {
		w.write(".gitignore", "target/\n*.o\n")
		w.git("init", "-q")
		w.git("add", "-A")
		w.git("commit", "-qm", "x")
	}
	return w
}

func (w *staleWS) git(args ...string) {
	w.t.Helper()
	c := exec.Command("git", append([]string{"-C", w.dir, "-c", "user.email=a@b", "-c", "user.name=a"}, args...)...)
	if out, err := c.CombinedOutput(); err != nil {
		w.t.Skipf("git %v: %v %s", args, err, out)
	}
}

func (w *staleWS) abs(p string) string { return filepath.Join(w.dir, filepath.FromSlash(p)) }

func (w *staleWS) write(p, c string) {
	w.t.Helper()
	os.MkdirAll(filepath.Dir(w.abs(p)), 0o755)
	if err := os.WriteFile(w.abs(p), []byte(c), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *staleWS) check(sw Watch, known map[string]checkout.FileState, want ...string) {
	w.t.Helper()
	got := sw.Stop(known)
	if want == nil {
		want = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		w.t.Errorf("stale %q, want %q", got, want)
	}
}

func bothModes(t *testing.T, f func(t *testing.T, useGit bool)) {
	for _, useGit := range []bool{true, false} {
		name := "plain"
		if useGit {
			name = "git"
		}
		t.Run(name, func(t *testing.T) { f(t, useGit) })
	}
}

func mustInotify(t *testing.T, sw Watch) {
	t.Helper()
	if _, ok := sw.(*inotifyWatch); !ok {
		t.Fatalf("no inotify watch (fell back to %T)", sw)
	}
}

// A touch (new times, same bytes) is no change, whatever the file's size;
// a write, a removal, a new file are.
func TestWatchTouchWriteDeleteCreate(t *testing.T) {
	bothModes(t, func(t *testing.T, useGit bool) {
		w := newStaleWS(t, useGit, map[string]string{
			"touched": "t\n", "written": "w\n", "same-bytes": "s\n", "removed": "r\n",
			"big": strings.Repeat("x", hashLimit+10), "src/deep/touched": "d\n",
		})
		sw := Start(w.dir)
		mustInotify(t, sw)
		later := time.Now().Add(time.Hour)
		for _, p := range []string{"touched", "big", "src/deep/touched"} {
			if err := os.Chtimes(w.abs(p), later, later); err != nil {
				t.Fatal(err)
			}
		}
		w.write("written", "W\n")
		// The same bytes written again: a reader between the truncate and
		// the write saw an empty file.
		w.write("same-bytes", "s\n")
		os.Remove(w.abs("removed"))
		w.write("src/new", "n\n")
		w.check(sw, nil, "removed", "same-bytes", "src/new", "written")
	})
}

// The watches are in place before Start returns: an edit made
// while they are being set, in a directory already watched, is an event;
// one in a directory not yet watched lands before any hypothesis can read
// the file, so it is the state every hypothesis starts from. The walk
// goes level by level: when m/sub is watched, a, m, z are, z/zz/zzz is
// not.
func TestWatchEditDuringSetup(t *testing.T) {
	bothModes(t, func(t *testing.T, useGit bool) {
		w := newStaleWS(t, useGit, map[string]string{"a/f": "a\n", "m/sub/h": "h\n", "z/f": "z\n", "z/zz/zzz/f": "zz\n"})
		afterWatch = func(rel string) {
			if rel == "m/sub" {
				w.write("a/f", "edited during setup\n")
				w.write("z/f", "edited during setup\n")
				w.write("z/zz/zzz/f", "edited before its watch\n")
				// watched, to a place not yet watched: the walk meets
				// the same directory again under its new name
				if err := os.Rename(w.abs("m/sub"), w.abs("z/zz/zzz/sub")); err != nil {
					t.Error(err)
				}
			}
		}
		defer func() { afterWatch = nil }()
		sw := Start(w.dir)
		mustInotify(t, sw)
		afterWatch = nil
		want := []string{"a/f", "m/sub/h", "z/f", "z/zz/zzz/sub/h"}
		if sw.(*inotifyWatch).rootDev != nil {
			want = []string{"a/f", "m/sub", "m/sub/h", "z/f", "z/zz/zzz/sub/h"} // m/sub: a leaf watched unread
		}
		w.check(sw, nil, want...)
	})
}

// A directory made during the run, with files in it at once (before its
// own watch can be set) and later.
func TestWatchNewDirectory(t *testing.T) {
	bothModes(t, func(t *testing.T, useGit bool) {
		w := newStaleWS(t, useGit, map[string]string{"a": "a\n"})
		sw := Start(w.dir)
		mustInotify(t, sw)
		w.write("new/sub/deep/f", "f\n")
		w.write("new/g", "g\n")
		time.Sleep(50 * time.Millisecond) // the reader has watched new/ by now
		w.write("new/sub/later", "l\n")
		w.write("new/sub/deep/later", "l\n")
		// made and gone again during the run: no change at the end
		w.write("new/tmp", "t\n")
		os.Remove(w.abs("new/tmp"))
		w.check(sw, nil, "new/g", "new/sub/deep/f", "new/sub/deep/later", "new/sub/later")
	})
}

func TestWatchRenames(t *testing.T) {
	bothModes(t, func(t *testing.T, useGit bool) {
		w := newStaleWS(t, useGit, map[string]string{"a.txt": "a\n", "dir/x": "x\n", "dir/sub/y": "y\n", "over": "o\n"})
		sw := Start(w.dir)
		mustInotify(t, sw)
		os.Rename(w.abs("a.txt"), w.abs("b.txt"))
		os.Rename(w.abs("dir"), w.abs("moved"))
		time.Sleep(50 * time.Millisecond)
		w.write("moved/sub/z", "z\n") // in the moved directory, at its new place
		// an editor's save: a new file renamed over the old name
		w.write(".over.swp", "O\n")
		os.Rename(w.abs(".over.swp"), w.abs("over"))
		want := []string{"a.txt", "b.txt", "dir/sub/y", "dir/x", "moved/sub/y", "moved/sub/z", "moved/x", "over"}
		if sw.(*inotifyWatch).rootDev != nil {
			// dir/sub was a leaf, watched unread: it is named too
			want = []string{"a.txt", "b.txt", "dir/sub", "dir/sub/y", "dir/x", "moved/sub/y", "moved/sub/z", "moved/x", "over"}
		}
		w.check(sw, nil, want...)
	})
}

func TestWatchDeleteTree(t *testing.T) {
	bothModes(t, func(t *testing.T, useGit bool) {
		w := newStaleWS(t, useGit, map[string]string{"keep": "k\n", "tree/a": "a\n", "tree/b/c": "c\n"})
		sw := Start(w.dir)
		mustInotify(t, sw)
		if err := os.RemoveAll(w.abs("tree")); err != nil {
			t.Fatal(err)
		}
		w.check(sw, nil, "tree/a", "tree/b/c")
	})
}

// Build outputs are not sources: git-ignored paths, in directories that
// exist at the start or are made during the run; but a tracked file in an
// ignored directory is.
func TestWatchIgnoredPaths(t *testing.T) {
	w := newStaleWS(t, true, map[string]string{"src/a": "a\n", "target/old.o": "o\n", "target/keep/tracked": "t\n"})
	w.git("add", "-f", "target/keep/tracked")
	w.git("commit", "-qm", "force")
	sw := Start(w.dir)
	mustInotify(t, sw)
	w.write("target/old.o", "rebuilt\n")
	w.write("target/debug/new.o", "n\n")
	w.write("src/a.o", "object\n")
	w.write("target/keep/tracked", "changed\n")
	w.write("src/a", "changed\n")
	w.check(sw, nil, "src/a", "target/keep/tracked")
}

// shadow's state dir inside the checkout (a workspace at $HOME) changes
// during every run.
func TestWatchExcludedStateDir(t *testing.T) {
	w := newStaleWS(t, false, map[string]string{"a.txt": "a", ".local/state/shadow/events.ndjson": "{}\n"})
	state := w.abs(".local/state/shadow")
	sw := Start(w.dir, state)
	mustInotify(t, sw)
	w.write(".local/state/shadow/events.ndjson", "{}\n{}\n")
	w.write(".local/state/shadow/runs/1/report.json", "{}")
	w.check(sw, nil)
}

// The paths a hypothesis writes (in-place mode writes them into the
// checkout and restores them) are compared by content with their start.
func TestWatchKnownPathsByContent(t *testing.T) {
	w := newStaleWS(t, false, map[string]string{"target.go": "orig\n", "other.go": "o\n"})
	known := checkout.ReadOriginals(w.dir, []spec.Hypothesis{{Files: []spec.File{{Path: "target.go"}, {Path: "created.go"}}, Deletes: []string{"other.go"}}})
	sw := Start(w.dir)
	mustInotify(t, sw)
	w.write("target.go", "hypothesis\n")
	w.write("created.go", "new\n")
	os.Remove(w.abs("other.go"))
	// restored
	w.write("target.go", "orig\n")
	os.Remove(w.abs("created.go"))
	w.write("other.go", "o\n")
	w.check(sw, known)

	sw = Start(w.dir)
	w.write("target.go", "not restored\n")
	w.check(sw, known, "target.go")
}

// A tracked file whose executable bit changes is a change; its times are
// not.
func TestWatchModeChange(t *testing.T) {
	w := newStaleWS(t, true, map[string]string{"run.sh": "#!/bin/sh\n", "data": "d\n"})
	sw := Start(w.dir)
	mustInotify(t, sw)
	os.Chmod(w.abs("run.sh"), 0o755)
	later := time.Now().Add(time.Hour)
	os.Chtimes(w.abs("data"), later, later)
	w.check(sw, nil, "run.sh")
}

// Events lost to a full queue cannot be ruled out: the whole checkout is
// stale, never a clean result.
func TestWatchOverflowIsStale(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skip("no max_queued_events:", err)
	}
	var max int
	fmt.Sscan(string(b), &max)
	if max > 100000 {
		t.Skipf("max_queued_events %d: too many files to write", max)
	}
	w := newStaleWS(t, false, map[string]string{"a": "a\n"})
	holdReader = make(chan struct{})
	sw := Start(w.dir)
	hold := holdReader
	holdReader = nil
	mustInotify(t, sw)
	f, err := os.OpenFile(w.abs("a"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Alternating files: inotify merges identical consecutive events.
	g, _ := os.Create(w.abs("b"))
	for i := 0; i < max+10; i++ {
		f.WriteAt([]byte("x"), 0)
		g.WriteAt([]byte("y"), 0)
	}
	f.Close()
	g.Close()
	close(hold)
	got := sw.Stop(nil)
	if len(got) == 0 || got[0] != All {
		t.Errorf("overflow not reported: %q", got)
	}
}

// A directory moved out of the checkout takes its files: where they were
// listed they are named, where it was a leaf never listed (the link count
// said it had no subdirectory) the directory stands for them.
func TestWatchDirectoryMovedOut(t *testing.T) {
	bothModes(t, func(t *testing.T, useGit bool) {
		w := newStaleWS(t, useGit, map[string]string{"keep": "k\n", "tree/a": "a\n", "tree/leaf/c": "c\n"})
		out := t.TempDir()
		sw := Start(w.dir)
		mustInotify(t, sw)
		if err := os.Rename(w.abs("tree"), filepath.Join(out, "tree")); err != nil {
			t.Fatal(err)
		}
		got := sw.Stop(nil)
		leaf := sw.(*inotifyWatch).rootDev != nil
		want := []string{"tree/a", "tree/leaf/c"}
		if leaf {
			want = []string{"tree/a", "tree/leaf"}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stale %q, want %q", got, want)
		}
	})
}

// A workspace reached through a symlink is watched where it lies (the
// watch does not follow symlinks); a root that cannot be watched at all
// falls back to the scans, never to no detection.
func TestWatchSymlinkedRootAndFallback(t *testing.T) {
	w := newStaleWS(t, false, map[string]string{"a": "a\n"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(w.dir, link); err != nil {
		t.Fatal(err)
	}
	sw := Start(link)
	mustInotify(t, sw)
	w.write("a", "changed\n")
	w.check(sw, nil, "a")

	if _, err := startInotify(filepath.Join(w.dir, "a"), nil); err == nil {
		t.Errorf("a file as the root: no error")
	}
}
