package overlay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// needRAM is needOverlay with RAM uppers of size bytes.
func needRAM(t *testing.T, size int64) *Sandbox {
	t.Helper()
	return needOverlay(t).RAM(size)
}

// The command's writes land on the tmpfs, never in the upper dir on disk:
// while the command runs, the hypothesis's directory on disk holds only
// what shadow prepared. With a disk upper the big file is right there.
func TestRAMUpperKeepsWritesOffTheDisk(t *testing.T) {
	sb := needRAM(t, 64<<20)
	ws := workspace(t)
	hyp := engine.Hypothesis{Name: "h", Files: []engine.File{{Path: "calc.py", Content: []byte("x = 1\n"), Mode: 0o644}}}
	done := make(chan struct{})
	var onDisk []string
	go func() {
		defer close(done)
		// Look while the command sleeps with its file written.
		for i := 0; i < 100; i++ {
			time.Sleep(50 * time.Millisecond)
			m, _ := filepath.Glob(filepath.Join(sb.base, "hyp-*", "upper", "target", "big.bin"))
			started, _ := filepath.Glob(filepath.Join(sb.base, "hyp-*", "upper", "calc.py"))
			if len(started) > 0 && i > 10 {
				onDisk = m
				return
			}
		}
	}()
	o, out, err := run(t, sb, context.Background(), ws, hyp, "sh", "-c",
		`head -c 4194304 /dev/zero > target/big.bin && cat calc.py && sleep 1.5`)
	<-done
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("run: %v %+v\n%s", err, o, out)
	}
	if len(onDisk) != 0 {
		t.Errorf("the command's file is in the upper dir on disk: %v", onDisk)
	}
	if !strings.Contains(out, "x = 1") {
		t.Errorf("the hypothesis's own file is not seen on a RAM upper: %q", out)
	}
	if strings.Join(o.Changed, ",") != "target/big.bin" {
		t.Errorf("changed = %v, want [target/big.bin] (read back from the tmpfs)", o.Changed)
	}
	if ents, _ := os.ReadDir(sb.base); len(ents) != 0 {
		t.Errorf("sandbox dirs left behind: %v", ents)
	}
}

// A hypothesis that fills its tmpfs gets ENOSPC in its output, the run
// ends normally, and the result carries a warning that says so; a
// sibling's RAM upper is its own and still has room.
func TestRAMUpperFullGivesENOSPC(t *testing.T) {
	sb := needRAM(t, 8<<20)
	ws := workspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o, out, err := run(t, sb, ctx, ws, engine.Hypothesis{Name: "fill"}, "sh", "-c",
		`head -c 33554432 /dev/zero > target/huge.bin; echo "rc=$?"`)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if ctx.Err() != nil {
		t.Fatal("a full RAM upper hung the run")
	}
	if !strings.Contains(out, "No space left on device") || !strings.Contains(out, "rc=1") {
		t.Errorf("the command did not get ENOSPC: %q", out)
	}
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "ENOSPC") || !strings.Contains(o.Warnings[0], "--upper-size") {
		t.Errorf("warnings = %q, want one naming ENOSPC and --upper-size", o.Warnings)
	}
	o, out, err = run(t, sb, ctx, ws, engine.Hypothesis{Name: "next"}, "sh", "-c", `head -c 4194304 /dev/zero > target/ok.bin; echo "rc=$?"`)
	if err != nil || !strings.Contains(out, "rc=0") || len(o.Warnings) != 0 {
		t.Errorf("the next hypothesis's RAM upper is not a fresh one: %v %q %q", err, out, o.Warnings)
	}
}

// --keep copies a RAM upper out before the tmpfs goes: files with their
// mtimes (make and cargo compare them), symlinks, deletions as whiteouts,
// opaque directories, and no setuid bit. The JUnit file is collected from the tmpfs.
func TestRAMUpperKeepAndCollect(t *testing.T) {
	sb := needRAM(t, 64<<20)
	ws := workspace(t)
	keep := filepath.Join(t.TempDir(), "kept", "upper")
	var out bytes.Buffer
	job := engine.Job{Workspace: ws, Env: os.Environ(), Output: &out, Net: "host", Tmp: "shared",
		KeepDir: keep, Collect: []string{"report.xml"},
		Hyp:     engine.Hypothesis{Name: "k", Files: []engine.File{{Path: "new/own.txt", Content: []byte("own\n"), Mode: 0o644}}},
		Command: []string{"sh", "-c", `echo built > target/out.o && touch -d 2020-01-02T03:04:05Z target/out.o && ln -s out.o target/link && rm -r pkg && mkdir pkg && echo n > pkg/n.txt && rm calc.py && echo '<testsuite/>' > report.xml && echo s > suid && chmod 4755 suid`}}
	o, err := sb.Run(context.Background(), job)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("run: %v %+v\n%s", err, o, out.String())
	}
	if string(o.Collected["report.xml"]) != "<testsuite/>\n" {
		t.Errorf("collected = %q", o.Collected)
	}
	fi, err := os.Stat(filepath.Join(keep, "target", "out.o"))
	if err != nil {
		t.Fatalf("kept copy lacks target/out.o: %v", err)
	}
	if want := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC); !fi.ModTime().Equal(want) {
		t.Errorf("kept mtime %v, want %v", fi.ModTime(), want)
	}
	if l, err := os.Readlink(filepath.Join(keep, "target", "link")); err != nil || l != "out.o" {
		t.Errorf("kept symlink: %q %v", l, err)
	}
	if fi, err := os.Stat(filepath.Join(keep, "suid")); err != nil || fi.Mode()&os.ModeSetuid != 0 {
		t.Errorf("kept suid file: %v %v", fi, err)
	}
	// pkg/ was deleted and made again inside the mount: opaque in the
	// tmpfs (its lower entries hidden), and so in the kept copy.
	if !isOpaque(filepath.Join(keep, "pkg")) {
		t.Error("the kept copy lost pkg/'s opaque marker")
	}
	got := ListUpper(keep, job.Hyp)
	var kinds []string
	for _, e := range got {
		kinds = append(kinds, e.Path+":"+e.Kind)
	}
	if want := "calc.py:deleted,pkg/n.txt:file,report.xml:file,suid:file,target/link:symlink,target/out.o:file"; strings.Join(kinds, ",") != want {
		t.Errorf("kept upper lists %v, want %s", kinds, want)
	}
}
