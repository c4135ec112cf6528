package warm

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// repo makes a git checkout with target/ and *.pyc ignored, a tracked
// source and a tracked file force-added inside target/.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	write(t, ws, ".gitignore", "target/\n*.pyc\n")
	write(t, ws, "src/lib.rs", "pub fn f() {}\n")
	write(t, ws, "target/keep.txt", "tracked\n")
	gitRun(t, ws, "init", "-q")
	gitRun(t, ws, "add", ".gitignore", "src/lib.rs")
	gitRun(t, ws, "add", "-f", "target/keep.txt")
	return ws
}

func gitRun(t *testing.T, ws string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", ws}, args...)...)
	cmd.Env = gitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// files lists a layer's files and symlinks.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			r, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func current(t *testing.T, root, ws string) (*Layer, []string) {
	t.Helper()
	l, err := Acquire(root, ws)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	t.Cleanup(l.Release)
	return l, files(t, l.Dir)
}

// whiteout makes an overlayfs whiteout in an upper dir the way the kernel
// does: a 0/0 character device (root), else the xattr form a user
// namespace's overlay uses where mknod is not allowed.
func whiteout(t *testing.T, upper, rel string) {
	t.Helper()
	p := filepath.Join(upper, filepath.FromSlash(rel))
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	if err := syscall.Mknod(p, syscall.S_IFCHR, 0); err == nil {
		return
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setxattr(p, "user.overlay.whiteout", []byte("y"), 0); err != nil {
		t.Skipf("cannot make a whiteout here (mknod and user xattrs refused): %v", err)
	}
}

func TestUpdateTakesOnlyIgnoredOutputs(t *testing.T) {
	ws, root, up := repo(t), t.TempDir(), t.TempDir()
	old := time.Date(2020, 1, 2, 3, 4, 5, 6000, time.UTC)
	p := write(t, up, "target/debug/app", "binary")
	_ = os.Chtimes(p, old, old)
	write(t, up, "src/__pycache__/m.pyc", "pyc")
	write(t, up, "made-by-build/x.pyc", "under a directory the build made")
	write(t, up, "target/keep.txt", "a tracked file inside target/, rewritten")
	write(t, up, "src/lib.rs", "a source rewritten by the build")
	write(t, up, "src/generated.rs", "an untracked source, not ignored")
	write(t, up, "target/suid", "x")
	if err := os.Chmod(filepath.Join(up, "target/suid"), os.ModeSetuid|0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(up, "target/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"out-abs": "/etc/passwd", "out-rel": "../../etc", "in-rel": "../src/lib.rs", "in-abs": filepath.Join(ws, "src/lib.rs")} {
		if err := os.Symlink(target, filepath.Join(up, "target", name)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, up, ".git/config", "never")
	m, err := Update(root, ws, up, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if m.Generation != 1 {
		t.Errorf("generation %d, want 1", m.Generation)
	}
	l, got := current(t, root, ws)
	want := []string{"made-by-build/x.pyc", "src/__pycache__/m.pyc", "target/debug/app", "target/in-abs", "target/in-rel"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("layer holds %v, want %v", got, want)
	}
	fi, err := os.Stat(filepath.Join(l.Dir, "target/debug/app"))
	if err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("mtime not kept: %v %v, want %v", fi.ModTime(), err, old)
	}
	// target/ holds a tracked file, so git names its ignored entries one
	// by one.
	if strings.Join(m.Roots, " ") != "made-by-build/x.pyc src/__pycache__/m.pyc target/debug/ target/in-abs target/in-rel" {
		t.Errorf("roots %v", m.Roots)
	}
}

func TestUpdateMergesWithTheLastGeneration(t *testing.T) {
	ws, root := repo(t), t.TempDir()
	up1 := t.TempDir()
	write(t, up1, "target/a", "a1")
	write(t, up1, "target/b", "b1")
	if _, err := Update(root, ws, up1, "r1"); err != nil {
		t.Fatal(err)
	}
	up2 := t.TempDir()
	write(t, up2, "target/c", "c2")
	write(t, up2, "target/a", "a2")
	whiteout(t, up2, "target/b")
	m, err := Update(root, ws, up2, "r2")
	if err != nil {
		t.Fatal(err)
	}
	l, got := current(t, root, ws)
	if m.Generation != 2 || strings.Join(got, " ") != "target/a target/c" {
		t.Fatalf("generation %d holds %v, want 2 with target/a target/c", m.Generation, got)
	}
	if b, _ := os.ReadFile(filepath.Join(l.Dir, "target/a")); string(b) != "a2" {
		t.Errorf("target/a = %q, want the newer baseline's", b)
	}
	if _, err := os.Stat(filepath.Join(root, filepath.Base(keyDir(root, ws)), genName(1))); err == nil {
		t.Errorf("generation 1 kept though no run holds it")
	}
}

func TestHeldGenerationOutlivesUpdate(t *testing.T) {
	ws, root := repo(t), t.TempDir()
	up := t.TempDir()
	write(t, up, "target/a", "a")
	if _, err := Update(root, ws, up, "r1"); err != nil {
		t.Fatal(err)
	}
	l, _ := current(t, root, ws)
	if _, err := Update(root, ws, up, "r2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(l.Dir, "target/a")); err != nil {
		t.Fatalf("the generation a run holds was removed under it: %v", err)
	}
	l.Release()
	if _, err := Update(root, ws, up, "r3"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.Dir); err == nil {
		t.Errorf("released generation %s never removed", l.Dir)
	}
}

func TestAcquireDropsALayerThatWouldShowOverSources(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, ws string)
		why    string
	}{
		{"no longer ignored", func(t *testing.T, ws string) { write(t, ws, ".gitignore", "*.pyc\n") }, "no longer ignored"},
		// git no longer calls a directory holding a tracked file ignored.
		{"tracked now", func(t *testing.T, ws string) { write(t, ws, "target/a", "x"); gitRun(t, ws, "add", "-f", "target/a") }, "dropped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, root, up := repo(t), t.TempDir(), t.TempDir()
			write(t, up, "target/a", "a")
			if _, err := Update(root, ws, up, "r1"); err != nil {
				t.Fatal(err)
			}
			tc.change(t, ws)
			l, err := Acquire(root, ws)
			if _, ok := err.(*Skipped); !ok || !strings.Contains(err.Error(), tc.why) {
				l.Release()
				t.Fatalf("Acquire = %v, %v; want it dropped (%s)", l, err, tc.why)
			}
		})
	}
}

// With no run holding it, an update changes the generation in place
// (renamed to the next one); with one held, it builds the next beside it.
// Both end with the same layer.
func TestUpdateInPlaceAndBesideAgree(t *testing.T) {
	var got [2][]string
	for i, hold := range []bool{false, true} {
		ws, root := repo(t), t.TempDir()
		up1 := t.TempDir()
		write(t, up1, "target/a", "a1")
		write(t, up1, "target/b", "b1")
		write(t, up1, "x.pyc", "x")
		if _, err := Update(root, ws, up1, "r1"); err != nil {
			t.Fatal(err)
		}
		if hold {
			l, err := Acquire(root, ws)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
		}
		before, _ := os.Stat(filepath.Join(keyDir(root, ws), genName(1), "target/b"))
		up2 := t.TempDir()
		write(t, up2, "target/a", "a2")
		whiteout(t, up2, "target/b")
		write(t, up2, "target/c", "c2")
		m, err := Update(root, ws, up2, "r2")
		if err != nil {
			t.Fatal(err)
		}
		l, files := current(t, root, ws)
		if m.Generation != 2 || l.Meta.Files != len(files) || m.Updating {
			t.Errorf("hold=%v: generation %d, meta counts %d files, holds %d, updating %v", hold, m.Generation, l.Meta.Files, len(files), m.Updating)
		}
		_, err = os.Stat(filepath.Join(keyDir(root, ws), genName(1)))
		if hold != (err == nil) || (hold && before == nil) {
			t.Errorf("hold=%v: generation 1 present = %v", hold, err == nil)
		}
		got[i] = files
	}
	if strings.Join(got[0], " ") != "target/a target/c x.pyc" || strings.Join(got[0], " ") != strings.Join(got[1], " ") {
		t.Errorf("in place: %v, beside: %v; want target/a target/c x.pyc both", got[0], got[1])
	}
}

// A layer an update in place left marked "updating" (a crash) is never
// stacked, and the next update starts it afresh.
func TestCutShortUpdateIsNotStacked(t *testing.T) {
	ws, root, up := repo(t), t.TempDir(), t.TempDir()
	write(t, up, "target/a", "a")
	m, err := Update(root, ws, up, "r1")
	if err != nil {
		t.Fatal(err)
	}
	m.Updating = true
	if err := writeMeta(keyDir(root, ws), m); err != nil {
		t.Fatal(err)
	}
	if l, err := Acquire(root, ws); err == nil {
		l.Release()
		t.Fatal("a layer marked updating was stacked")
	}
	up2 := t.TempDir()
	write(t, up2, "target/b", "b")
	if _, err := Update(root, ws, up2, "r2"); err != nil {
		t.Fatal(err)
	}
	if _, got := current(t, root, ws); strings.Join(got, " ") != "target/b" {
		t.Errorf("after a cut-short update the layer holds %v, want only the new baseline's target/b", got)
	}
}

func TestConcurrentUpdatesStayConsistent(t *testing.T) {
	ws, root := repo(t), t.TempDir()
	const n = 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		up := t.TempDir()
		for j := 0; j < 50; j++ {
			write(t, up, filepath.Join("target", string(rune('a'+i)), string(rune('a'+j%26))+string(rune('a'+j/26))), strings.Repeat("x", i+1))
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, errs[i] = Update(root, ws, up, "r")
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	l, got := current(t, root, ws)
	if l.Meta.Generation != n || len(got) != n*50 || l.Meta.Files != n*50 {
		t.Fatalf("generation %d, %d files (meta %d), want %d and %d", l.Meta.Generation, len(got), l.Meta.Files, n, n*50)
	}
	des, _ := os.ReadDir(filepath.Dir(l.Dir))
	for _, de := range des {
		if strings.HasPrefix(de.Name(), tmpPrefix) || (strings.HasPrefix(de.Name(), genPrefix) && de.Name() != filepath.Base(l.Dir) && !strings.HasSuffix(de.Name(), ".lock")) {
			t.Errorf("left behind: %s", de.Name())
		}
	}
}

func TestGCBoundsSizeAndDropsGoneWorkspaces(t *testing.T) {
	root := t.TempDir()
	var wss []string
	for i := 0; i < 3; i++ {
		ws, up := repo(t), t.TempDir()
		write(t, up, "target/blob", strings.Repeat("x", 1000))
		if _, err := Update(root, ws, up, "r"); err != nil {
			t.Fatal(err)
		}
		// Used in order: 0 oldest.
		ts := time.Now().Add(time.Duration(i-10) * time.Minute)
		_ = os.WriteFile(filepath.Join(keyDir(root, ws), usedName), nil, 0o600)
		_ = os.Chtimes(filepath.Join(keyDir(root, ws), usedName), ts, ts)
		wss = append(wss, ws)
	}
	held, err := Acquire(root, wss[1])
	if err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(wss[2])
	removed, errs := GC(root, 500) // room for none
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	why := map[string]string{}
	for _, r := range removed {
		why[r.Workspace] = r.Why
	}
	if !strings.Contains(why[wss[2]], "no longer exists") || !strings.Contains(why[wss[0]], "least recently used") || why[wss[1]] != "" {
		t.Errorf("gc removed %v; want the gone workspace's and the LRU one's, not the held one's", why)
	}
	if _, err := os.Stat(held.Dir); err != nil {
		t.Errorf("gc removed a layer a run holds: %v", err)
	}
	held.Release()
	if removed, _ := GC(root, 500); len(removed) != 1 {
		t.Errorf("after release gc removed %v, want the last layer", removed)
	}
	if des, _ := os.ReadDir(root); len(des) != 0 {
		t.Errorf("left in %s: %v", root, des)
	}
}

// An opaque directory in the upper (the baseline removed target/debug and
// made it again) replaces what the layer held there, and the layer itself
// carries no overlay xattr.
func TestUpdateOpaqueDirReplaces(t *testing.T) {
	ws, root := repo(t), t.TempDir()
	up1 := t.TempDir()
	write(t, up1, "target/debug/old", "old")
	write(t, up1, "target/other", "other")
	if _, err := Update(root, ws, up1, "r1"); err != nil {
		t.Fatal(err)
	}
	up2 := t.TempDir()
	write(t, up2, "target/debug/new", "new")
	name := "trusted.overlay.opaque"
	if os.Geteuid() != 0 {
		name = "user.overlay.opaque"
	}
	if err := syscall.Setxattr(filepath.Join(up2, "target/debug"), name, []byte("y"), 0); err != nil {
		t.Skipf("cannot mark a directory opaque here: %v", err)
	}
	// Copied-up files carry overlayfs's "origin"; hard-linked into the
	// layer, the inode must lose it.
	if err := syscall.Setxattr(filepath.Join(up2, "target/debug/new"), strings.TrimSuffix(name, "opaque")+"origin", []byte{0}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := Update(root, ws, up2, "r2"); err != nil {
		t.Fatal(err)
	}
	l, got := current(t, root, ws)
	if x := overlayXattrs(filepath.Join(l.Dir, "target/debug/new")); len(x) > 0 {
		t.Errorf("layer file carries overlay xattrs %v", x)
	}
	if strings.Join(got, " ") != "target/debug/new target/other" {
		t.Errorf("layer holds %v, want target/debug/old gone", got)
	}
	if x := overlayXattrs(filepath.Join(l.Dir, "target/debug")); len(x) > 0 {
		t.Errorf("layer directory carries overlay xattrs %v", x)
	}
}
