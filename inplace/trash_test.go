//go:build unix

package inplace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashHelper runs h in a re-executed test binary that kills itself with
// SIGKILL at step (crashEnv) and checks that it died so.
func crashHelper(t *testing.T, state, ws string, h helperJob, step, script string) {
	t.Helper()
	h.State, h.Workspace, h.Command = state, ws, []string{"sh", "-c", script}
	spec, _ := json.Marshal(h)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "INPLACE_TEST_HELPER="+string(spec), crashEnv+"="+step)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper was not killed at %s: %v\n%s", step, err, stderr.String())
	}
}

// bigTree adds a directory of n files (in nested directories, with a
// symlink and an executable) under rel.
func bigTree(t *testing.T, ws, rel string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		p := filepath.Join(ws, rel, fmt.Sprintf("d%02d", i%37), fmt.Sprintf("e%d", i%5), fmt.Sprintf("f%05d.txt", i))
		write(t, p, fmt.Sprintf("file %d\n", i), 0o644)
	}
	write(t, filepath.Join(ws, rel, "bin", "tool"), "#!/bin/sh\n", 0o755)
	if err := os.Symlink("d00", filepath.Join(ws, rel, "first")); err != nil {
		t.Fatal(err)
	}
}

func dirHyp() helperJob {
	h := fullHyp()
	h.Deletes = []string{"big", "old.txt", "tree"} // two directories: a crash between their moves
	return h
}

// Every crash point of a hypothesis that deletes directories (one of
// thousands of files): the next run (Recover with the workspace) or gc
// (without) puts every file back, byte for byte, and leaves no journal
// and no trash.
func TestDirDeleteKill9AtEachPointThenRecover(t *testing.T) {
	steps := []string{"before-journal", "mid-journal", "after-journal", "mid-write", "mid-delete", "during-command", "mid-restore", "mid-restore-dir"}
	for i, step := range steps {
		t.Run(step, func(t *testing.T) {
			ws, state := fixture(t)
			bigTree(t, ws, "big", 2000)
			before := snapshot(t, ws, false)
			script := "echo ran"
			if step == "during-command" {
				script = "echo ran; sleep 60"
			}
			crashHelper(t, state, ws, dirHyp(), step, script)
			switch step {
			case "mid-delete":
				if _, err := os.Lstat(filepath.Join(ws, "big")); err == nil {
					t.Fatal("big was not moved aside before the crash")
				}
			case "during-command":
				if _, err := os.Lstat(filepath.Join(ws, "tree")); err == nil {
					t.Fatal("tree still in the checkout while the command ran")
				}
			}
			wsArg := ws
			if i%2 == 1 {
				wsArg = "" // as shadow gc does
			}
			r, err := Recover(state, wsArg)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Warnings) != 0 {
				t.Fatalf("warnings: %v", r.Warnings)
			}
			if HasJournal(state) {
				t.Fatal("journal left after recovery")
			}
			if got := snapshot(t, ws, false); got != before {
				t.Fatalf("checkout not restored:\n%s", diffLines(before, got))
			}
		})
	}
}

// kill -9 at random moments of a run that deletes a directory of
// thousands of files: whatever moment it lands on, recovery restores
// every file.
func TestDirDeleteKill9AtRandomMoments(t *testing.T) {
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	exe, _ := os.Executable()
	for i := 0; i < 4; i++ {
		ws, state := fixture(t)
		bigTree(t, ws, "big", 3000)
		before := snapshot(t, ws, false)
		h := dirHyp()
		h.State, h.Workspace, h.Command = state, ws, []string{"sh", "-c", "sleep 0.05"}
		spec, _ := json.Marshal(h)
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "INPLACE_TEST_HELPER="+string(spec))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Intn(400)) * time.Millisecond
		time.Sleep(delay)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		r, err := Recover(state, ws)
		if err != nil {
			t.Fatalf("after a kill at %v: %v", delay, err)
		}
		if got := snapshot(t, ws, false); got != before {
			t.Fatalf("after a kill at %v (replayed %v): checkout not restored:\n%s", delay, r.Journal != nil, diffLines(before, got))
		}
		if HasJournal(state) {
			t.Fatalf("journal left after a kill at %v", delay)
		}
	}
}

// A run that rebuilt a deleted directory (or a user who made one) does
// not make recovery keep the half: the original comes back whole, and what
// stood there is kept, not lost.
func TestRecoveryComparesContentsNotExistence(t *testing.T) {
	ws, state := fixture(t)
	bigTree(t, ws, "big", 500)
	before := snapshot(t, ws, false)
	crashHelper(t, state, ws, dirHyp(), "during-command", "sleep 60")
	// What the command (a build) or the user made there after the delete.
	write(t, filepath.Join(ws, "big", "only.txt"), "rebuilt\n", 0o644)
	r, err := Recover(state, ws)
	if err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, ws, false); got != before {
		t.Fatalf("checkout not restored:\n%s", diffLines(before, got))
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "big") {
		t.Fatalf("warnings %q", r.Warnings)
	}
	kept, _ := filepath.Glob(filepath.Join(state, KeptName, "*", "big", "only.txt"))
	if len(kept) != 1 {
		t.Fatalf("what the run left in big is not kept: %v (%v)", kept, r.Warnings)
	}
}

// When the moved-aside copy has lost entries (here: removed by hand),
// recovery says what is missing and keeps the journal.
func TestRecoveryKeepsJournalWhenEntriesAreMissing(t *testing.T) {
	ws, state := fixture(t)
	bigTree(t, ws, "big", 200)
	crashHelper(t, state, ws, dirHyp(), "during-command", "sleep 60")
	trashed, _ := filepath.Glob(filepath.Join(JournalDir(state), "trash", "t-*", "d03", "e3", "*.txt"))
	if len(trashed) == 0 {
		t.Fatal("big is not in the state dir's trash")
	}
	os.Remove(trashed[0])
	_, err := Recover(state, ws)
	var ie *IncompleteError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), filepath.Base(trashed[0])) || !strings.Contains(err.Error(), "misses 1") {
		t.Fatalf("want an IncompleteError naming %s, got %v", filepath.Base(trashed[0]), err)
	}
	if !HasJournal(state) {
		t.Fatal("journal removed although the restore is incomplete")
	}
	// The rest is back, and a second replay says the same, not "done".
	if _, err := os.Stat(filepath.Join(ws, "big", "d00")); err != nil {
		t.Fatal(err)
	}
	if _, err := Recover(state, ws); !errors.As(err, &ie) {
		t.Fatalf("second replay: %v", err)
	}
}

// otherFS is a directory on another filesystem than t.TempDir()
// (/dev/shm, a tmpfs on most Linux systems), or skips.
func otherFS(t *testing.T) string {
	t.Helper()
	base := "/dev/shm"
	d1, _, err1 := mountOf(base)
	d2, _, err2 := mountOf(os.TempDir())
	if err1 != nil || err2 != nil || d1 == d2 {
		t.Skip("no second filesystem (/dev/shm) to put the workspace on")
	}
	d, err := os.MkdirTemp(base, "inplace-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// With the workspace on another filesystem than the state dir and no
// .git directory there, a directory delete is refused before anything
// changes; with a .git directory, its trash is used instead and a crash is
// recovered from it.
func TestDirDeleteNeedsATrashOnItsFilesystem(t *testing.T) {
	ws := otherFS(t)
	state := stateFor(t, ws)
	write(t, filepath.Join(ws, "v.txt"), "bad\n", 0o644)
	bigTree(t, ws, "big", 100)
	before := snapshot(t, ws, true)
	h := helperJob{Deletes: []string{"big"}, Files: map[string]string{"v.txt": "good\n"}}
	_, _, err := runJob(t, context.Background(), state, ws, h, "true")
	var nt *NoTrashError
	if !errors.As(err, &nt) || nt.Path != "big" {
		t.Fatalf("want a NoTrashError for big, got %v", err)
	}
	if got := snapshot(t, ws, true); got != before {
		t.Fatal("the checkout changed although the run was refused")
	}
	if HasJournal(state) {
		t.Fatal("a journal was left")
	}

	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, ws, false)
	crashHelper(t, state, ws, h, "during-command", "sleep 60")
	if m, _ := filepath.Glob(filepath.Join(ws, ".git", "shadow-trash", "*", "t-*")); len(m) != 1 {
		t.Fatalf("big is not in .git's trash: %v", m)
	}
	if _, err := Recover(state, ""); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, ws, false); got != before {
		t.Fatalf("checkout not restored:\n%s", diffLines(before, got))
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git", "shadow-trash")); err == nil {
		t.Fatal("the empty trash was left in .git")
	}
}

// diffLines shows the first lines that differ between two snapshots.
func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	as, bs := map[string]bool{}, map[string]bool{}
	for _, l := range al {
		as[l] = true
	}
	for _, l := range bl {
		bs[l] = true
	}
	var out []string
	for _, l := range al {
		if !bs[l] && len(out) < 10 {
			out = append(out, "- "+l)
		}
	}
	for _, l := range bl {
		if !as[l] && len(out) < 20 {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
