//go:build linux

package inplace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/test/e2e"
)

// treeHash is a hash of every path, mode and content under root.
func treeHash(t *testing.T, root string) string {
	h := sha256.Sum256([]byte(e2e.Contents(t, root, false)))
	return hex.EncodeToString(h[:])
}

// kill -9 of the real binary while a hypothesis deletes a directory of
// thousands of files, at its named crash points and at random moments:
// the next `shadow gc` (or run) restores every file.
func TestE2EInplaceKill9WhileDeletingADirectory(t *testing.T) {
	e2e.Parallel(t)
	cases := []struct{ name, crash string }{{"mid-delete", "mid-delete"}, {"during-command", "during-command"}, {"mid-restore-dir", "mid-restore-dir"}}
	for i := 0; i < 3; i++ {
		cases = append(cases, struct{ name, crash string }{fmt.Sprintf("random-%d", i), ""})
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Each case has its own checkout and state dir, and most of its
			// time goes to creating and removing the 3000 files: the cases
			// overlap. The random kills stay random (the delays are not
			// meant to land on a given step).
			t.Parallel()
			e := e2e.NewInplaceEnv(t)
			e.BigDir("vendor", 3000)
			e.BigDir("gen", 50)
			before := treeHash(t, e.WS)
			spec := e.Spec(map[string]any{"hypotheses": []any{
				map[string]any{"name": "rm", "delete": []string{"gen", "vendor"}},
			}})
			extra := e2e.NoUserNS
			if c.crash != "" {
				extra = append(extra, "SHADOW_TEST_CRASH_AT="+c.crash)
				_, stderr, _, killed := e.RunEnv(extra, "--headless", "--mode", "inplace", "-C", e.WS, spec, "--", "sh", "-c", "sleep 0.2")
				if !killed {
					t.Fatalf("not killed at %s:\n%s", c.crash, stderr)
				}
			} else {
				cmd := e.Cmd("--headless", "--mode", "inplace", "-C", e.WS, spec, "--", "sh", "-c", "sleep 0.1")
				cmd.Env = append(cmd.Env, extra...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Duration(50+i*120) * time.Millisecond)
				_ = cmd.Process.Signal(syscall.SIGKILL)
				_ = cmd.Wait()
			}
			out, stderr, code, _ := e.RunEnv(nil, "gc")
			if code != 0 {
				t.Fatalf("gc: exit %d\n%s\n%s", code, out, stderr)
			}
			if got := treeHash(t, e.WS); got != before {
				t.Fatalf("not every file is back after gc:\n%s%s", out, stderr)
			}
		})
	}
}

// A journal planted in the state dir (the route of a hypothesis that can
// write it) is refused by the next run and by gc, with a message naming
// it; nothing is written into the checkout or, through "..", beside it.
func TestE2EForgedJournalIsRefused(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	base := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	if _, stderr, code, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--mode", "inplace", "-C", e.WS, base, "--", "true"); code != 0 {
		t.Fatalf("first run: %d\n%s", code, stderr)
	}
	wsDirs, _ := filepath.Glob(filepath.Join(e.State, "shadow", "workspaces", "*"))
	if len(wsDirs) != 1 {
		t.Fatalf("workspace dirs: %v", wsDirs)
	}
	jdir := filepath.Join(wsDirs[0], "inplace-journal")
	os.MkdirAll(jdir, 0o700)
	sum := sha256.Sum256([]byte("PLANTED\n"))
	cur := sha256.Sum256([]byte("bad\n"))
	for _, rel := range []string{"../outside.txt", "v.txt"} {
		journal := fmt.Sprintf(`{"mac":"00","journal":{"schema":"shadow.inplace-journal/v1","id":"0123456789ab","workspace":%q,"hyp":"x","pid":1,"started":"2024-01-01T00:00:00Z","command_started":true,"entries":[{"path":%q,"orig":{"kind":"file","mode":420,"blob":"blob-1","sha256":"%x","size":8},"wrote":{"kind":"file","mode":420,"sha256":"%x","size":4}}],"created_dirs":[],"parents":[]}}`,
			e.WS, rel, sum, cur)
		os.WriteFile(filepath.Join(jdir, "blob-1"), []byte("PLANTED\n"), 0o600)
		os.WriteFile(filepath.Join(jdir, "journal.json"), []byte(journal), 0o600)
		before := e2e.Contents(t, e.WS, true)
		_, stderr, code, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--mode", "inplace", "-C", e.WS, base, "--", "true")
		if code != 3 || !strings.Contains(stderr, "refusing the in-place journal "+jdir) {
			t.Fatalf("%s: run: exit %d\n%s", rel, code, stderr)
		}
		out, stderr, code, _ := e.RunEnv(nil, "gc")
		if code != 3 || !strings.Contains(stderr+out, "refusing the in-place journal "+jdir) {
			t.Fatalf("%s: gc: exit %d\n%s%s", rel, code, out, stderr)
		}
		if got := e2e.Contents(t, e.WS, true); got != before {
			t.Fatalf("%s: the checkout changed", rel)
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(e.WS), "outside.txt")); err == nil {
			t.Fatalf("%s: written outside the workspace", rel)
		}
	}
}

// Where a deleted directory cannot be moved aside on its filesystem (the
// workspace on a tmpfs, the state dir elsewhere, no .git), in-place mode
// refuses the run with exit 3 before anything runs.
func TestE2EInplaceDirDeleteWithoutTrashExits3(t *testing.T) {
	e2e.Parallel(t)
	var a, b syscall.Stat_t
	if syscall.Stat("/dev/shm", &a) != nil || syscall.Stat(os.TempDir(), &b) != nil || a.Dev == b.Dev {
		t.Skip("no second filesystem (/dev/shm) for the workspace")
	}
	ws, err := os.MkdirTemp("/dev/shm", "shadow-e2e-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(ws)
	e := &e2e.Env{T: t, WS: ws, State: t.TempDir(), Dir: t.TempDir()}
	e.Write("v.txt", "bad\n", 0o644)
	e.BigDir("lib", 20)
	before := e2e.Contents(t, e.WS, true)
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "rm", "delete": []string{"lib"}}}})
	out, stderr, code, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--mode", "inplace", "-C", e.WS, spec, "--", "true")
	if code != 3 || !strings.Contains(stderr, "cannot delete the directory lib safely") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if got := e2e.Contents(t, e.WS, true); got != before {
		t.Fatal("the checkout changed")
	}
}

// kill -9 of the real binary while an in-place command has left a daemon
// that cleared its environment, left the session, ignores SIGTERM and
// waits for the checkout's original v.txt to come back to write into it:
// once the process helper's PR_SET_PDEATHSIG has fired (and its grace
// period passed), nothing of the run is left, and the next run restores
// the journal into a checkout no survivor writes.
func TestE2EInplaceKill9LeavesNoDescendants(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	before := e2e.Contents(t, e.WS, false)
	marker := "shadow-e2e-kill9-" + strconv.Itoa(os.Getpid())
	ready := filepath.Join(e.Dir, "ready")
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}})
	daemon := `env -i PATH=/usr/bin:/bin setsid sh -c 'trap "" TERM; : ` + marker + `; while :; do grep -q bad v.txt 2>/dev/null && echo x >> v.txt; sleep 0.02; done' </dev/null >/dev/null 2>&1 & ` +
		`( (env -i PATH=/usr/bin:/bin sh -c 'sleep 1000; : ` + marker + `') & ) </dev/null >/dev/null 2>&1; `
	// ready is outside the checkout: --writable lets the sealed command
	// write it (Landlock; docs/modes.md, "inplace").
	cmd := e.Cmd("--headless", "--mode", "inplace", "--writable", e.Dir, "-C", e.WS, spec, "--", "sh", "-c", daemon+`touch `+ready+`; while :; do sleep 1; done`)
	cmd.Env = append(cmd.Env, e2e.NoUserNS...)
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("the command did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(markedProcs(marker)) < 2 {
		t.Fatalf("the daemons are not running: %v", markedProcs(marker))
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// The helper's grace period is 2s; then it SIGKILLs.
	deadline = time.Now().Add(8 * time.Second)
	for len(markedProcs(marker)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := markedProcs(marker); len(left) > 0 {
		for _, p := range left {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("processes of the killed run still running: %v", left)
	}
	base := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	out, stderr, code, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--mode", "inplace", "-C", e.WS, base, "--", "true")
	if code != 0 {
		t.Fatalf("next run: exit %d\n%s\n%s", code, out, stderr)
	}
	time.Sleep(300 * time.Millisecond)
	if got := e2e.Contents(t, e.WS, false); got != before {
		t.Fatalf("the checkout is not back, or was written after:\nbefore:\n%s\nafter:\n%s\n%s", before, got, stderr)
	}
}

// markedProcs lists living processes whose command line holds marker.
func markedProcs(marker string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		if !strings.Contains(string(b), marker) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if st, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}
