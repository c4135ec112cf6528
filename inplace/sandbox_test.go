//go:build unix

package inplace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
)

// The test binary doubles as a shadow process that gets killed: with
// INPLACE_TEST_HELPER set to a JSON job it runs that job through a
// Sandbox (SHADOW_TEST_CRASH_AT decides where it dies).
func TestMain(m *testing.M) {
	reaper.MaybeHelper()
	if spec := os.Getenv("INPLACE_TEST_HELPER"); spec != "" {
		var h helperJob
		if err := json.Unmarshal([]byte(spec), &h); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var out bytes.Buffer
		_, err := New(h.State, os.Stderr).Seal(SealOptions{Writable: h.Writable}).Run(context.Background(), h.Job(&out))
		os.Stdout.Write(out.Bytes())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type helperJob struct {
	State, Workspace string
	Files            map[string]string
	Deletes          []string
	Command          []string
	// Writable: directories outside the checkout the sealed command may
	// write (a test's own log), as --writable gives.
	Writable []string
}

func (h helperJob) Job(out *bytes.Buffer) engine.Job {
	hyp := engine.Hypothesis{Name: "h", Deletes: h.Deletes}
	var paths []string
	for p := range h.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		hyp.Files = append(hyp.Files, engine.File{Path: p, Content: []byte(h.Files[p]), Mode: 0o644})
	}
	return engine.Job{Workspace: h.Workspace, Hyp: hyp, Command: h.Command, Env: os.Environ(), Output: out}
}

// snapshot lists every path under root with its type, mode, content or
// target and, with mtimes, its mtime (directories' too).
func snapshot(t *testing.T, root string, mtimes bool) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %s", rel, fi.Mode())
		if mtimes {
			fmt.Fprintf(&b, " %d", fi.ModTime().UnixNano())
		}
		switch {
		case fi.Mode().IsRegular():
			c, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", c)
		case fi.Mode()&fs.ModeSymlink != 0:
			tgt, _ := os.Readlink(p)
			fmt.Fprintf(&b, " -> %s", tgt)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func write(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// fixture is a workspace with a file, an executable, a symlink, a nested
// tree (with a symlink inside) and an old mtime on everything.
func fixture(t *testing.T) (ws, state string) {
	t.Helper()
	ws = t.TempDir()
	state = stateFor(t, ws)
	write(t, filepath.Join(ws, "v.txt"), "bad\n", 0o644)
	write(t, filepath.Join(ws, "run.sh"), "#!/bin/sh\necho hi\n", 0o755)
	write(t, filepath.Join(ws, "old.txt"), "old\n", 0o600)
	write(t, filepath.Join(ws, "tree/a/b.txt"), "b\n", 0o644)
	if err := os.Symlink("b.txt", filepath.Join(ws, "tree/a/link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("v.txt", filepath.Join(ws, "vlink")); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC)
	// Deepest first, so setting a child does not move its parent's mtime.
	var all []string
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error { all = append(all, p); return nil })
	for i := len(all) - 1; i >= 0; i-- {
		setTimes(all[i], old.UnixNano())
	}
	return ws, state
}

// stateFor is a state dir named as snap.Store.WorkspaceDir names ws's:
// gc ties a journal to its workspace by that name.
func stateFor(t *testing.T, ws string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(ws))
	return filepath.Join(t.TempDir(), "ws-"+hex.EncodeToString(sum[:6]))
}

func fullHyp() helperJob {
	return helperJob{
		Files: map[string]string{
			"v.txt":         "good\n",
			"run.sh":        "#!/bin/sh\necho changed\n",
			"new/deep/n.go": "package n\n",
			"vlink":         "not a link any more\n",
		},
		Deletes: []string{"old.txt", "tree"},
	}
}

func runJob(t *testing.T, ctx context.Context, state, ws string, h helperJob, command ...string) (engine.Outcome, string, error) {
	t.Helper()
	h.State, h.Workspace, h.Command = state, ws, command
	var out bytes.Buffer
	o, err := New(state, nil).Seal(SealOptions{Writable: h.Writable}).Run(ctx, h.Job(&out))
	return o, out.String(), err
}

func TestRunShowsHypothesisThenRestoresEverything(t *testing.T) {
	ws, state := fixture(t)
	before := snapshot(t, ws, false)
	check := `test "$(cat v.txt)" = good && test ! -e old.txt && test ! -e tree && test ! -L vlink && ` +
		`test "$(cat vlink)" = "not a link any more" && test -f new/deep/n.go && echo SEEN`
	o, out, err := runJob(t, context.Background(), state, ws, fullHyp(), "sh", "-c", check)
	if err != nil || o.ExitCode != 0 || !strings.Contains(out, "SEEN") {
		t.Fatalf("exit %d err %v out %q", o.ExitCode, err, out)
	}
	if got := snapshot(t, ws, false); got != before {
		t.Fatalf("checkout not restored:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	if HasJournal(state) {
		t.Fatal("journal left behind")
	}
	if len(o.Warnings) != 0 {
		t.Fatalf("warnings: %v", o.Warnings)
	}
}

func TestExitCodeAndMissingCommand(t *testing.T) {
	ws, state := fixture(t)
	before := snapshot(t, ws, false)
	o, _, err := runJob(t, context.Background(), state, ws, fullHyp(), "sh", "-c", "exit 7")
	if err != nil || o.ExitCode != 7 {
		t.Fatalf("exit %d err %v", o.ExitCode, err)
	}
	_, _, err = runJob(t, context.Background(), state, ws, fullHyp(), "no-such-command-shadow")
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("err %v", err)
	}
	if got := snapshot(t, ws, false); got != before {
		t.Fatalf("checkout not restored:\n%s\n%s", before, got)
	}
}

func TestHardLinkedTwinIsNotModified(t *testing.T) {
	ws, state := fixture(t)
	outside := filepath.Join(t.TempDir(), "twin.txt")
	if err := os.Link(filepath.Join(ws, "v.txt"), outside); err != nil {
		t.Fatal(err)
	}
	// The command checks the twin while the hypothesis is in place.
	o, out, err := runJob(t, context.Background(), state, ws, helperJob{Files: map[string]string{"v.txt": "good\n"}},
		"sh", "-c", fmt.Sprintf(`test "$(cat v.txt)" = good && test "$(cat %s)" = bad && echo TWIN-OK`, outside))
	if err != nil || o.ExitCode != 0 || !strings.Contains(out, "TWIN-OK") {
		t.Fatalf("exit %d err %v out %q", o.ExitCode, err, out)
	}
	if b, _ := os.ReadFile(outside); string(b) != "bad\n" {
		t.Fatalf("twin = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "bad\n" {
		t.Fatalf("v.txt = %q", b)
	}
}

func TestSymlinkIsReplacedNotFollowed(t *testing.T) {
	ws, state := fixture(t)
	target := filepath.Join(t.TempDir(), "target.txt")
	write(t, target, "outside\n", 0o644)
	if err := os.Symlink(target, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	o, _, err := runJob(t, context.Background(), state, ws, helperJob{Files: map[string]string{"out": "inside\n"}},
		"sh", "-c", `test ! -L out && test "$(cat out)" = inside`)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("exit %d err %v", o.ExitCode, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "outside\n" {
		t.Fatalf("symlink target written through: %q", b)
	}
	if l, err := os.Readlink(filepath.Join(ws, "out")); err != nil || l != target {
		t.Fatalf("symlink not restored: %q %v", l, err)
	}
}

func TestConcurrentEditIsNotClobbered(t *testing.T) {
	ws, state := fixture(t)
	// While the command runs, "the user" saves v.txt (a new file, as
	// editors do) and edits run.sh in place.
	o, out, err := runJob(t, context.Background(), state, ws, fullHyp(), "sh", "-c",
		`printf 'user edit\n' > v.txt.new && mv v.txt.new v.txt && printf 'more\n' >> run.sh`)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("exit %d err %v", o.ExitCode, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "user edit\n" {
		t.Fatalf("user's edit clobbered: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "run.sh")); string(b) != "#!/bin/sh\necho changed\nmore\n" {
		t.Fatalf("user's edit clobbered: %q", b)
	}
	// Everything else is back.
	if b, _ := os.ReadFile(filepath.Join(ws, "old.txt")); string(b) != "old\n" {
		t.Fatalf("old.txt = %q", b)
	}
	if l, _ := os.Readlink(filepath.Join(ws, "vlink")); l != "v.txt" {
		t.Fatalf("vlink = %q", l)
	}
	if len(o.Warnings) != 2 || !strings.Contains(strings.Join(o.Warnings, "\n"), "left v.txt alone") || !strings.Contains(out, "left run.sh alone") {
		t.Fatalf("warnings %q, output %q", o.Warnings, out)
	}
	// The originals are kept, not lost.
	kept, _ := filepath.Glob(filepath.Join(state, KeptName, "*", "v.txt"))
	if len(kept) != 1 {
		t.Fatalf("original of v.txt not kept: %v", kept)
	}
	if b, _ := os.ReadFile(kept[0]); string(b) != "bad\n" {
		t.Fatalf("kept original = %q", b)
	}
}

func TestUserCreatesDeletedPath(t *testing.T) {
	ws, state := fixture(t)
	o, _, err := runJob(t, context.Background(), state, ws, fullHyp(), "sh", "-c", `echo mine > old.txt`)
	if err != nil || o.ExitCode != 0 {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "old.txt")); string(b) != "mine\n" || len(o.Warnings) != 1 {
		t.Fatalf("old.txt = %q, warnings %q", b, o.Warnings)
	}
}

func TestCreatedDirsRemovedOnlyWhenEmpty(t *testing.T) {
	ws, state := fixture(t)
	_, _, err := runJob(t, context.Background(), state, ws, fullHyp(), "sh", "-c", `echo built > new/artifact`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "new/deep")); err == nil {
		t.Fatal("new/deep (empty after restore) not removed")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "new/artifact")); string(b) != "built\n" {
		t.Fatal("a directory with the command's output in it was removed")
	}
}

func procsWith(marker string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if bytes.Contains(b, []byte(marker)) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func TestTimeoutEndsProcessGroupAndRestores(t *testing.T) {
	ws, state := fixture(t)
	before := snapshot(t, ws, false)
	marker := "shadow-inplace-marker-" + strconv.Itoa(os.Getpid())
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	// A child that ignores SIGTERM: the group gets SIGKILL after the grace.
	old := Grace
	Grace = 300 * time.Millisecond
	defer func() { Grace = old }()
	_, _, err := runJob(t, ctx, state, ws, fullHyp(), "sh", "-c",
		`(trap '' TERM; exec -a `+marker+` sleep 60) & sleep 60 & wait`)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
	deadline := time.Now().Add(3 * time.Second)
	for len(procsWith(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("left running: %v", procsWith(marker))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := snapshot(t, ws, false); got != before {
		t.Fatalf("checkout not restored:\n%s\n%s", before, got)
	}
}

func TestBackgroundChildrenEndWithTheCommand(t *testing.T) {
	ws, state := fixture(t)
	marker := "shadow-inplace-bg-" + strconv.Itoa(os.Getpid())
	o, _, err := runJob(t, context.Background(), state, ws, fullHyp(), "sh", "-c",
		`(exec -a `+marker+` sleep 60) >/dev/null 2>&1 & echo started`)
	if err != nil || o.ExitCode != 0 {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if p := procsWith(marker); len(p) > 0 {
		t.Fatalf("background child still running after the command: %v", p)
	}
}

func TestTwoSandboxesTakeTurns(t *testing.T) {
	ws, state := fixture(t)
	before := snapshot(t, ws, false)
	log := filepath.Join(t.TempDir(), "log")
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := helperJob{Files: map[string]string{"v.txt": fmt.Sprintf("hyp %d\n", i)}, Writable: []string{filepath.Dir(log)}}
			o, _, err := runJob(t, context.Background(), state, ws, h, "sh", "-c",
				fmt.Sprintf(`echo start %d >> %s; sleep 0.3; test "$(cat v.txt)" = "hyp %d" || exit 9; echo end %d >> %s`, i, log, i, i, log))
			if err == nil && o.ExitCode != 0 {
				err = fmt.Errorf("hypothesis %d saw the other's file (exit %d)", i, o.ExitCode)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(log)
	lines := strings.Fields(strings.ReplaceAll(string(b), "\n", " "))
	// start a, end a, start b, end b: never interleaved.
	if len(lines) != 8 || lines[0] != "start" || lines[2] != "end" || lines[1] != lines[3] || lines[5] != lines[7] {
		t.Fatalf("runs overlapped: %q", b)
	}
	if got := snapshot(t, ws, false); got != before {
		t.Fatalf("checkout not restored:\n%s\n%s", before, got)
	}
}

func TestLockWaitsVisiblyAndHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), LockName)
	rel, err := Lock(context.Background(), path, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var notice bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, path, false, &notice); err == nil {
		t.Fatal("shared lock granted while held exclusively")
	}
	if !strings.Contains(notice.String(), "waiting for another shadow run on this workspace") {
		t.Fatalf("notice %q", notice.String())
	}
	rel()
	r1, err := Lock(context.Background(), path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Lock(context.Background(), path, false, nil)
	if err != nil {
		t.Fatal("two shared holders refused")
	}
	r1()
	r2()
}

// crashSteps are the points of the cycle the process is killed at, and
// whether the command had started (then restored files carry fresh mtimes;
// before that the checkout comes back with its mtimes too).
var crashSteps = []struct {
	step       string
	journal    bool // a committed journal is left
	commandRan bool
}{
	{"before-journal", false, false},
	{"mid-journal", false, false},
	{"after-journal", true, false},
	{"mid-write", true, false},
	{"during-command", true, true},
	{"mid-restore", true, true},
}

func TestKill9AtEachStepThenRecover(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range crashSteps {
		t.Run(c.step, func(t *testing.T) {
			ws, state := fixture(t)
			before := snapshot(t, ws, c.commandRan == false)
			marker := "shadow-crash-" + c.step + "-" + strconv.Itoa(os.Getpid())
			h := fullHyp()
			h.State, h.Workspace = state, ws
			h.Command = []string{"sh", "-c", `(exec -a ` + marker + ` sleep 60) & echo hi; wait`}
			spec, _ := json.Marshal(h)
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "INPLACE_TEST_HELPER="+string(spec), crashEnv+"="+c.step)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("helper was not killed at %s: %v\n%s", c.step, err, stderr.String())
			}
			if got := HasJournal(state); got != (c.journal || c.step == "mid-journal") {
				t.Fatalf("journal present = %v", got)
			}
			// The checkout holds (part of) the hypothesis now.
			switch c.step {
			case "mid-write":
				if _, err := os.Stat(filepath.Join(ws, "new/deep/n.go")); err != nil {
					t.Fatal("the first file was not written before the crash")
				}
			case "during-command", "mid-restore":
				if b, _ := os.ReadFile(filepath.Join(ws, "v.txt")); string(b) != "good\n" {
					t.Fatalf("hypothesis not in the checkout at %s: %q", c.step, b)
				}
			}
			r, err := Recover(state, ws)
			if err != nil {
				t.Fatal(err)
			}
			if c.journal && r.Journal == nil {
				t.Fatal("no journal replayed")
			}
			if HasJournal(state) {
				t.Fatal("journal left after recovery")
			}
			if len(r.Warnings) != 0 {
				t.Fatalf("warnings: %v", r.Warnings)
			}
			if got := snapshot(t, ws, c.commandRan == false); got != before {
				t.Fatalf("checkout not restored byte for byte:\nbefore:\n%s\nafter:\n%s", before, got)
			}
			deadline := time.Now().Add(3 * time.Second)
			for len(procsWith(marker)) > 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the crashed run's command is still running: %v", procsWith(marker))
				}
				time.Sleep(20 * time.Millisecond)
			}
			// And a second replay has nothing to do.
			if r, err := Recover(state, ws); err != nil || r.Journal != nil {
				t.Fatalf("second replay: %+v %v", r, err)
			}
		})
	}
}

func TestRecoverRefusesAnotherWorkspace(t *testing.T) {
	ws, state := fixture(t)
	exe, _ := os.Executable()
	h := fullHyp()
	h.State, h.Workspace, h.Command = state, ws, []string{"true"}
	spec, _ := json.Marshal(h)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "INPLACE_TEST_HELPER="+string(spec), crashEnv+"=after-journal")
	_ = cmd.Run()
	if _, err := Recover(state, t.TempDir()); err == nil {
		t.Fatal("replayed into another workspace")
	}
	if _, err := Recover(state, ""); err != nil {
		t.Fatal(err)
	}
}
