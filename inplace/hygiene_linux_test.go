package inplace

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every process of these tests clears its environment (env -i: no
// variable leads back to the job) and most leave the session (setsid: no
// process group either). Their command lines hold a marker, which is how
// the tests find survivors.

const clean = `env -i PATH=/usr/bin:/bin `

// restoreWaiter is a daemon that ignores SIGTERM and waits for the
// checkout's original v.txt ("bad") to come back, to write into it: it
// changes the checkout only if it outlives the restore.
func restoreWaiter(marker string) string {
	return clean + `setsid sh -c 'trap "" TERM; : ` + marker + `; while :; do grep -q bad v.txt 2>/dev/null && echo x >> v.txt; sleep 0.02; done' </dev/null >/dev/null 2>&1 &`
}

// hostileTree: a setsid daemon, a double fork, a SIGTERM-ignoring child,
// a fork loop.
func hostileTree(marker string) string {
	return clean + `setsid sh -c 'while :; do sleep 1; done; : ` + marker + `' </dev/null >/dev/null 2>&1 &
( (` + clean + `sh -c 'sleep 1000; : ` + marker + `') & ) </dev/null >/dev/null 2>&1
` + clean + `sh -c 'trap "" TERM; while :; do sleep 1; done; : ` + marker + `' </dev/null >/dev/null 2>&1 &
` + clean + `sh -c 'while :; do sleep 5 & sleep 0.01; done; : ` + marker + `' </dev/null >/dev/null 2>&1 &
sleep 0.3
`
}

// noneLeft fails if a process with marker in its command line is alive a
// few seconds on, and kills what it finds so one failure does not load
// the machine for the tests after it (fork loops).
func noneLeft(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for len(procsWith(marker)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	left := procsWith(marker)
	if len(left) == 0 {
		return
	}
	for round := 0; round < 50; round++ {
		for _, p := range procsWith(marker) {
			pid, _ := strconv.Atoi(p)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("processes outlived the job: %v", left)
}

// The brief's daemon: the command starts it and exits. Run returns only
// once it is gone, so the restored checkout is byte-identical and stays
// so.
func TestDaemonEndedBeforeRestore(t *testing.T) {
	ws, state := fixture(t)
	before := snapshot(t, ws, false)
	marker := "shadow-inplace-daemon-" + strconv.Itoa(os.Getpid())
	o, out, err := runJob(t, context.Background(), state, ws, fullHyp(), "sh", "-c", restoreWaiter(marker)+` echo started`)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("exit %d err %v: %s", o.ExitCode, err, out)
	}
	time.Sleep(300 * time.Millisecond) // a survivor would have written by now
	if got := snapshot(t, ws, false); got != before {
		t.Errorf("the checkout was written after the restore:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	noneLeft(t, marker)
	// The daemon's own children (its grep, its sleep) may be counted with
	// it, depending on where its loop was when the command ended.
	if !regexp.MustCompile(`left [1-9][0-9]* process\(es\) running`).MatchString(strings.Join(o.Warnings, "\n")) {
		t.Errorf("warnings %q do not report the daemon", o.Warnings)
	}
}

// A double fork, a SIGTERM-ignoring child and a fork loop, all with a
// clean environment, are ended before Run returns.
func TestLeftoverTreeEnded(t *testing.T) {
	ws, state := fixture(t)
	before := snapshot(t, ws, false)
	old := Grace
	Grace = 300 * time.Millisecond
	defer func() { Grace = old }()
	marker := "shadow-inplace-tree-" + strconv.Itoa(os.Getpid())
	o, out, err := runJob(t, context.Background(), state, ws, fullHyp(), "sh", "-c", hostileTree(marker)+`exit 0`)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("exit %d err %v: %s", o.ExitCode, err, out)
	}
	if p := procsWith(marker); len(p) > 0 {
		noneLeft(t, marker)
		t.Fatalf("running after Run returned: %v", p)
	}
	if got := snapshot(t, ws, false); got != before {
		t.Errorf("checkout not restored:\nbefore:\n%s\nafter:\n%s", before, got)
	}
}

// Timeout and cancel end the whole tree, then restore.
func TestTimeoutAndCancelEndTheTreeBeforeRestore(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		name := map[bool]string{false: "timeout", true: "cancel"}[cancel]
		t.Run(name, func(t *testing.T) {
			ws, state := fixture(t)
			before := snapshot(t, ws, false)
			old := Grace
			Grace = 300 * time.Millisecond
			defer func() { Grace = old }()
			marker := "shadow-inplace-" + name + "-" + strconv.Itoa(os.Getpid())
			ctx, stop := context.WithTimeout(context.Background(), 800*time.Millisecond)
			if cancel {
				ctx, stop = context.WithCancel(context.Background())
				time.AfterFunc(800*time.Millisecond, stop)
			}
			defer stop()
			start := time.Now()
			_, out, err := runJob(t, ctx, state, ws, fullHyp(), "sh", "-c",
				restoreWaiter(marker)+"\n"+hostileTree(marker)+`trap "" TERM; while :; do sleep 1; done`)
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("ending the job took %v", d)
			}
			if p := procsWith(marker); len(p) > 0 {
				noneLeft(t, marker)
				t.Fatalf("running after Run returned: %v", p)
			}
			time.Sleep(200 * time.Millisecond)
			if got := snapshot(t, ws, false); got != before {
				t.Errorf("checkout not restored, or written after:\nbefore:\n%s\nafter:\n%s", before, got)
			}
		})
	}
}

// kill -9 of shadow while the command runs: the helper gets SIGTERM
// (PR_SET_PDEATHSIG) and ends the tree, a SIGTERM-proof daemon after the
// grace period. A replay started at once must wait for that: the daemon
// would write into the restored checkout otherwise.
func TestKill9ThenReplayWaitsForTheTree(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws, state := fixture(t)
	before := snapshot(t, ws, false)
	marker := "shadow-inplace-kill9-" + strconv.Itoa(os.Getpid())
	ready := filepath.Join(t.TempDir(), "ready")
	h := fullHyp()
	h.State, h.Workspace = state, ws
	h.Writable = []string{filepath.Dir(ready)}
	h.Command = []string{"sh", "-c", restoreWaiter(marker) + "\n" + hostileTree(marker) + `touch ` + ready + `; while :; do sleep 1; done`}
	spec, _ := json.Marshal(h)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "INPLACE_TEST_HELPER="+string(spec))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			noneLeft(t, marker)
			t.Fatalf("the command did not start: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	r, err := Recover(state, ws)
	if err != nil {
		t.Fatal(err)
	}
	if r.Journal == nil {
		t.Fatal("no journal replayed")
	}
	if p := procsWith(marker); len(p) > 0 {
		noneLeft(t, marker)
		t.Fatalf("the crashed run's processes outlived the replay: %v", p)
	}
	time.Sleep(300 * time.Millisecond)
	if got := snapshot(t, ws, false); got != before {
		t.Fatalf("checkout not restored, or written after:\nbefore:\n%s\nafter:\n%s", before, got)
	}
}

// kill -9 of shadow after the helper started but before it was recorded
// in the journal (half a second on, time enough for a command to start
// its daemon): the helper must not have started the command (a replay
// could not know to wait for it), so the replay restores a checkout that
// nothing writes.
func TestKill9BeforeTheHelperIsRecorded(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws, state := fixture(t)
	before := snapshot(t, ws, false)
	marker := "shadow-inplace-unrecorded-" + strconv.Itoa(os.Getpid())
	h := fullHyp()
	h.State, h.Workspace = state, ws
	h.Command = []string{"sh", "-c", restoreWaiter(marker) + " sleep 60"}
	spec, _ := json.Marshal(h)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "INPLACE_TEST_HELPER="+string(spec), crashEnv+"=helper-started@500ms")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("not killed at helper-started: %v\n%s", err, stderr.String())
	}
	if _, err := Recover(state, ws); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := snapshot(t, ws, false); got != before {
		noneLeft(t, marker)
		t.Fatalf("checkout not restored, or written after:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	noneLeft(t, marker)
}
