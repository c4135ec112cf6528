//go:build linux || darwin

package copy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
)

func TestMain(m *testing.M) {
	reaper.MaybeHelper()
	maybeSeccomp()
	if os.Getenv(orphanEnv) != "" {
		os.Exit(runOrphanParent())
	}
	os.Exit(m.Run())
}

// treeState is everything a checkout holds, for byte-identity checks:
// type, mode, size, mtime, content hash, link target of every entry.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		desc := fmt.Sprintf("%v %d", fi.Mode(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			desc += " -> " + l
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		m[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// objectTimesOut drops the mtimes of git's object files: a git command in
// the copy that writes an object the checkout's store (its alternate)
// already holds refreshes that object's mtime instead (git's "freshen", so
// gc keeps it). Their contents and everything else must stay identical.
func objectTimesOut(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if strings.HasPrefix(k, ".git/objects/") {
			f := strings.Fields(v)
			if len(f) >= 3 {
				v = f[0] + " " + f[2]
			}
		}
		out[k] = v
	}
	return out
}

func diffStates(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if b[k] != v {
			d = append(d, fmt.Sprintf("%s: %q -> %q", k, v, b[k]))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "new: "+k)
		}
	}
	sort.Strings(d)
	return d
}

func write(t *testing.T, root, rel, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// fixture is a workspace with what copies must get right: nested dirs,
// an executable, an ignored build dir, symlinks (relative, absolute into
// the workspace, climbing out of it) and a git repository.
func fixture(t *testing.T) (ws, outside string) {
	t.Helper()
	top := t.TempDir()
	ws = filepath.Join(top, "proj")
	outside = filepath.Join(top, "shared")
	write(t, outside, "lib.txt", "shared lib\n", 0o644)
	write(t, ws, "src/calc.py", "def add(a, b):\n    return a - b\n", 0o644)
	write(t, ws, "tests/test_calc.py", "from src.calc import add\n", 0o644)
	write(t, ws, "run.sh", "#!/bin/sh\necho run\n", 0o755)
	write(t, ws, "node_modules/pkg/index.js", "module.exports = 1\n", 0o644)
	write(t, ws, "old.txt", "to be deleted\n", 0o644)
	must(t, os.Symlink("src/calc.py", filepath.Join(ws, "rel-link")))
	must(t, os.Symlink(filepath.Join(ws, "src"), filepath.Join(ws, "abs-link")))
	must(t, os.Symlink("../shared/lib.txt", filepath.Join(ws, "out-link")))
	if _, err := exec.LookPath("git"); err == nil {
		gitIn(t, ws, "init", "-q")
		gitIn(t, ws, "add", "-A")
		gitIn(t, ws, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
	}
	return ws, outside
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func job(ws string, out *syncBuf, script string, files ...engine.File) engine.Job {
	return engine.Job{
		Workspace: ws, Hyp: engine.Hypothesis{Name: "h", Files: files},
		Command: []string{"/bin/sh", "-c", script}, Env: append(os.Environ(), "SHADOW_TEST_WS=@"+ws), // @: not a path, so not rebased,
		Net: "host", Tmp: "shared", Output: out,
	}
}

func assertNoCopies(t *testing.T, base string) {
	t.Helper()
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), copyPrefix) {
			t.Errorf("copy %s left behind", e.Name())
		}
	}
}

// TestCopyHoldsHypothesisCheckoutUntouched: the command sees the
// hypothesis's files and the workspace's others (ignored ones included),
// runs in the copy, and whatever it writes, deletes or chmods there never
// reaches the checkout; the copy is gone afterwards.
func TestCopyHoldsHypothesisCheckoutUntouched(t *testing.T) {
	ws, outside := fixture(t)
	before := treeState(t, ws)
	outBefore := treeState(t, outside)
	base := filepath.Join(t.TempDir(), "copies")
	sb := New(base, Options{})
	var out syncBuf
	j := job(ws, &out, `set -e
SHADOW_TEST_WS=${SHADOW_TEST_WS#@}
test "$(pwd)" != "$SHADOW_TEST_WS"
test "$PWD" = "$(pwd)"
test ! -e /proc/$$/fd/3 # only fds 0-2 reach the command
grep -q 'a + b' src/calc.py
test ! -e old.txt
test -f node_modules/pkg/index.js
test -x run.sh
cat rel-link | grep -q 'a + b'
case "$(readlink abs-link)" in "$SHADOW_TEST_WS"/*) echo abs-link leads to the checkout; exit 9;; esac
grep -q 'a + b' abs-link/calc.py
grep -q 'shared lib' out-link
if command -v git >/dev/null; then
  HOME=$PWD git log --oneline | grep -q init
  HOME=$PWD git -c user.email=t@t -c user.name=t commit -qam 'in the copy'
  HOME=$PWD git gc -q --prune=now
fi
echo junk > src/calc.py
rm -rf tests node_modules
chmod 000 run.sh
mkdir -p build && echo out > build/x.o
echo ok`,
		engine.File{Path: "src/calc.py", Content: []byte("def add(a, b):\n    return a + b\n"), Mode: 0o644})
	j.Hyp.Deletes = []string{"old.txt"}
	o, err := sb.Run(context.Background(), j)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if o.ExitCode != 0 {
		t.Fatalf("exit %d, output:\n%s", o.ExitCode, out.String())
	}
	if d := diffStates(objectTimesOut(before), objectTimesOut(treeState(t, ws))); len(d) > 0 {
		t.Errorf("the checkout changed:\n%s", strings.Join(d, "\n"))
	}
	if d := diffStates(outBefore, treeState(t, outside)); len(d) > 0 {
		t.Errorf("outside the workspace changed:\n%s", strings.Join(d, "\n"))
	}
	for _, want := range []string{"src/calc.py", "tests/test_calc.py", "node_modules/pkg/index.js", "run.sh", "build/x.o"} {
		if !contains(o.Changed, want) {
			t.Errorf("Changed %v lacks %s", o.Changed, want)
		}
	}
	if contains(o.Changed, "old.txt") || contains(o.Changed, "rel-link") {
		t.Errorf("Changed %v names what the hypothesis did, or nothing did", o.Changed)
	}
	assertNoCopies(t, base)
	if ms, bytes := sb.CopyCost(); bytes == 0 || ms < 0 {
		t.Errorf("copy cost %d ms %d bytes", ms, bytes)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCopiesAreSeparate: hypotheses running at the same time each see
// only their own files and their own writes.
func TestCopiesAreSeparate(t *testing.T) {
	ws, _ := fixture(t)
	base := filepath.Join(t.TempDir(), "copies")
	// Each command notes when it starts and when it ends, outside the
	// copies (a --writable directory, as the seal allows): overlap is read
	// from that order, not from wall time.
	logDir := t.TempDir()
	log := filepath.Join(logDir, "order")
	sb := New(base, Options{Writable: []string{logDir}})
	var wg sync.WaitGroup
	outs := make([]syncBuf, 3)
	errs := make([]error, 3)
	codes := make([]int, 3)
	for i := range outs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			me := strconv.Itoa(i)
			j := job(ws, &outs[i], `set -e
test "$(cat mine)" = "`+me+`"
echo start >> `+log+`
echo `+me+` > shared-write
n=0; while [ "$(grep -c start `+log+`)" -lt 3 ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done
echo end >> `+log+`
test "$(cat shared-write)" = "`+me+`"
test "$(cat mine)" = "`+me+`"`, engine.File{Path: "mine", Content: []byte(me + "\n"), Mode: 0o644})
			o, err := sb.Run(context.Background(), j)
			errs[i], codes[i] = err, o.ExitCode
		}(i)
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil || codes[i] != 0 {
			t.Errorf("hypothesis %d: %v exit %d\n%s", i, errs[i], codes[i], outs[i].String())
		}
	}
	if b, _ := os.ReadFile(log); string(b) != "start\nstart\nstart\nend\nend\nend\n" {
		t.Errorf("the hypotheses did not all run at once: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "shared-write")); err == nil {
		t.Error("a write reached the checkout")
	}
}

// hostileTree starts what a test suite leaves behind: a setsid daemon, a
// double-forked child, one that ignores SIGTERM, and a fork loop.
const hostileTree = `
setsid sh -c 'while :; do sleep 1; done' </dev/null >/dev/null 2>&1 &
( ( sleep 1000 ) & ) </dev/null >/dev/null 2>&1
sh -c 'trap "" TERM; while :; do sleep 1; done' </dev/null >/dev/null 2>&1 &
sh -c 'while :; do sleep 5 & done' </dev/null >/dev/null 2>&1 &
sleep 0.3
`

func needProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process checks read /proc")
	}
}

// TestLeftoverProcessesEnded: whatever the command leaves running when it
// exits (setsid, double fork, SIGTERM ignored, a fork loop) is ended
// before Run returns, and reported.
func TestLeftoverProcessesEnded(t *testing.T) {
	needProc(t)
	ws, _ := fixture(t)
	base := filepath.Join(t.TempDir(), "copies")
	sb := New(base, Options{Grace: 300 * time.Millisecond})
	mark := "SHADOW_TEST_MARK=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	var out syncBuf
	j := job(ws, &out, hostileTree+"exit 0")
	j.Env = append(j.Env, mark)
	o, err := sb.Run(context.Background(), j)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("%v exit %d\n%s", err, o.ExitCode, out.String())
	}
	if left := marked(mark); len(left) > 0 {
		killAll(left)
		killAll(marked(mark))
		t.Fatalf("processes left running after Run: %v", left)
	}
	if !strings.Contains(strings.Join(o.Warnings, "\n"), "left") {
		t.Errorf("warnings %q do not report the leftovers", o.Warnings)
	}
	assertNoCopies(t, base)
}

// TestCancelEndsTree: a cancel (or timeout) ends the command and all of
// its descendants, SIGTERM-proof ones included, within the grace period.
func TestCancelEndsTree(t *testing.T) {
	needProc(t)
	ws, _ := fixture(t)
	base := filepath.Join(t.TempDir(), "copies")
	sb := New(base, Options{Grace: 300 * time.Millisecond})
	mark := "SHADOW_TEST_MARK=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	var out syncBuf
	j := job(ws, &out, hostileTree+"trap '' TERM; echo started; while :; do sleep 1; done")
	j.Env = append(j.Env, mark)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := sb.Run(ctx, j)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if el := time.Since(start); el > 6*time.Second {
		t.Errorf("cancel took %s", el)
	}
	if !strings.Contains(out.String(), "started") {
		t.Fatalf("the command did not start: %s", out.String())
	}
	if left := marked(mark); len(left) > 0 {
		killAll(left)
		killAll(marked(mark))
		t.Fatalf("processes left running after a cancel: %v", left)
	}
	assertNoCopies(t, base)
}

// orphanEnv makes the test binary a stand-in for shadow that runs one job
// and waits to be killed (TestShadowKilled).
const orphanEnv = "SHADOW_TEST_ORPHAN_PARENT"

func runOrphanParent() int {
	var cfg struct{ WS, Base, Mark string }
	_ = jsonUnmarshal(os.Getenv(orphanEnv), &cfg)
	os.Unsetenv(orphanEnv)
	sb := New(cfg.Base, Options{Grace: 300 * time.Millisecond})
	j := engine.Job{
		Workspace: cfg.WS, Hyp: engine.Hypothesis{Name: "h"},
		Command: []string{"/bin/sh", "-c", hostileTree + "echo started; while :; do sleep 1; done"},
		Env:     append(os.Environ(), cfg.Mark), Net: "host", Tmp: "shared", Output: os.Stdout,
	}
	_, _ = sb.Run(context.Background(), j)
	return 0
}

// TestShadowKilled: kill -9 of shadow ends the helper's whole tree
// (PR_SET_PDEATHSIG) and leaves the copy, which GC then removes; a live
// owner's copy is kept.
func TestShadowKilled(t *testing.T) {
	needProc(t)
	ws, _ := fixture(t)
	base := filepath.Join(t.TempDir(), "copies")
	mark := "SHADOW_TEST_MARK=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cfg := fmt.Sprintf(`{"WS":%q,"Base":%q,"Mark":%q}`, ws, base, mark)
	exe, _ := os.Executable()
	var out syncBuf
	parent := exec.Command(exe, "-test.run=^$")
	parent.Env = append(os.Environ(), orphanEnv+"="+cfg)
	parent.Stdout, parent.Stderr = &out, &out
	parent.WaitDelay = 2 * time.Second // leftovers holding the pipe must not hang the test
	must(t, parent.Start())
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "started") {
		if time.Now().After(deadline) {
			_ = parent.Process.Kill()
			t.Fatalf("the job did not start: %s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(marked(mark)) < 4 {
		t.Fatalf("the hostile tree is not running: %v", marked(mark))
	}
	if r := GC(base, 0); len(r.Removed) != 0 || len(r.Kept) != 1 {
		t.Fatalf("GC with shadow alive: removed %v kept %v", r.Removed, r.Kept)
	}
	_ = parent.Process.Kill()
	_ = parent.Wait()
	deadline = time.Now().Add(10 * time.Second)
	for len(marked(mark)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := marked(mark); len(left) > 0 {
		killAll(left)
		killAll(marked(mark))
		t.Fatalf("processes left running after shadow was killed: %v", left)
	}
	ents, _ := os.ReadDir(base)
	if len(ents) != 1 {
		t.Fatalf("want the dead run's copy left for gc, have %d entries", len(ents))
	}
	// The helper may still be exiting: GC keeps the copy until it is gone.
	var r GCResult
	for time.Now().Before(deadline) {
		if r = GC(base, 0); len(r.Removed) == 1 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(r.Removed) != 1 || len(r.Errors) > 0 {
		t.Fatalf("GC after the crash: %+v", r)
	}
	assertNoCopies(t, base)
}

// TestCollectOnlyWhatTheCommandWrote: a JUnit report left in the checkout
// from an earlier run is not this hypothesis's.
func TestCollectOnlyWhatTheCommandWrote(t *testing.T) {
	ws, _ := fixture(t)
	write(t, ws, "stale.xml", "<old/>", 0o644)
	sb := New(filepath.Join(t.TempDir(), "copies"), Options{})
	var out syncBuf
	j := job(ws, &out, "echo '<new/>' > report.xml")
	j.Collect = []string{"stale.xml", "report.xml"}
	o, err := sb.Run(context.Background(), j)
	must(t, err)
	if _, ok := o.Collected["stale.xml"]; ok {
		t.Error("collected a file the command did not write")
	}
	if got := string(o.Collected["report.xml"]); got != "<new/>\n" {
		t.Errorf("report.xml = %q", got)
	}
}

// TestBackReferencesReported: files that lead back to the checkout by
// absolute path are named in the warnings.
func TestBackReferencesReported(t *testing.T) {
	ws, _ := fixture(t)
	write(t, ws, "build/CMakeCache.txt", "CMAKE_HOME_DIRECTORY:INTERNAL="+ws+"\n", 0o644)
	write(t, ws, ".venv/pyvenv.cfg", "home = /usr/bin\n", 0o644)
	write(t, ws, ".venv/bin/pytest", "#!"+ws+"/.venv/bin/python\nimport pytest\n", 0o755)
	write(t, ws, ".venv/lib/python3/site-packages/__editable__.proj-0.1.pth", ws+"/src\n", 0o644)
	write(t, ws, "go.work", "use "+ws+"2/other\n", 0o644) // another directory: not a back-reference
	sb := New(filepath.Join(t.TempDir(), "copies"), Options{})
	var out syncBuf
	o, err := sb.Run(context.Background(), job(ws, &out, "true"))
	must(t, err)
	w := strings.Join(o.Warnings, "\n")
	for _, want := range []string{"build/CMakeCache.txt", "__editable__.proj-0.1.pth", ".venv/bin/pytest"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %s:\n%s", want, w)
		}
	}
	if strings.Contains(w, "go.work") || strings.Contains(w, "pyvenv.cfg") {
		t.Errorf("warnings name a file that does not lead back:\n%s", w)
	}
}

// TestSkipAndLowers: --copy-skip leaves a directory out (and says so); a
// read-only layer's files win over the workspace's.
func TestSkipAndLowers(t *testing.T) {
	ws, _ := fixture(t)
	layer := t.TempDir()
	write(t, layer, "src/calc.py", "frozen\n", 0o644)
	sb := New(filepath.Join(t.TempDir(), "copies"), Options{Skip: []string{"node_modules"}})
	var out syncBuf
	j := job(ws, &out, `test ! -e node_modules && grep -q frozen src/calc.py`)
	j.Lowers = []string{layer}
	o, err := sb.Run(context.Background(), j)
	must(t, err)
	if o.ExitCode != 0 {
		t.Fatalf("exit %d: %s", o.ExitCode, out.String())
	}
	if !strings.Contains(strings.Join(o.Warnings, "\n"), "--copy-skip left out node_modules") {
		t.Errorf("warnings %q", o.Warnings)
	}
}

// TestRefusals: a copies directory inside the workspace, and --net
// isolated, which needs a namespace.
func TestRefusals(t *testing.T) {
	ws, _ := fixture(t)
	var out syncBuf
	if _, err := New(filepath.Join(ws, "copies"), Options{}).Run(context.Background(), job(ws, &out, "true")); err == nil {
		t.Error("a copies directory inside the workspace was accepted")
	}
	j := job(ws, &out, "true")
	j.Net = "isolated"
	if _, err := New(t.TempDir(), Options{NoSeal: true}).Run(context.Background(), j); err == nil {
		t.Error("--net isolated was accepted without Landlock")
	}
	j = job(ws, &out, "true")
	j.Command = []string{"no-such-command-anywhere"}
	if _, err := New(t.TempDir(), Options{}).Run(context.Background(), j); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a missing command: %v", err)
	}
}

func TestRebaseEnv(t *testing.T) {
	env := rebaseEnv([]string{"PATH=/ws/.venv/bin:/usr/bin:/ws2/bin", "VIRTUAL_ENV=/ws/.venv", "HOME=/home/u", "X=/ws"}, "/ws", "/c/ws")
	want := []string{"PATH=/c/ws/.venv/bin:/usr/bin:/ws2/bin", "VIRTUAL_ENV=/c/ws/.venv", "HOME=/home/u", "X=/c/ws"}
	if strings.Join(env, " ") != strings.Join(want, " ") {
		t.Errorf("got %v", env)
	}
	if got := rebaseArg("--rootdir=/ws/tests", "/ws", "/c/ws"); got != "--rootdir=/c/ws/tests" {
		t.Errorf("rebaseArg: %s", got)
	}
}

// TestColdCachesNamed: a copy at another path says which path-keyed
// caches miss there.
func TestColdCachesNamed(t *testing.T) {
	ws, _ := fixture(t)
	write(t, ws, "Cargo.toml", "[package]\nname = \"x\"\n", 0o644)
	write(t, ws, "target/debug/.fingerprint/x", "", 0o644)
	write(t, ws, "go.mod", "module x\n", 0o644)
	sb := New(filepath.Join(t.TempDir(), "copies"), Options{})
	var out syncBuf
	o, err := sb.Run(context.Background(), job(ws, &out, "true"))
	must(t, err)
	w := strings.Join(o.Warnings, "\n")
	if !strings.Contains(w, "Go's build and test caches") || strings.Contains(w, "cargo") {
		t.Errorf("warnings (Go's caches are keyed by directory, cargo's target/ stays fresh):\n%s", w)
	}
}

// TestKeepMovesWhatTheCommandWrote: --keep leaves the command's own
// writes (not the workspace's other files) in the keep dir.
func TestKeepMovesWhatTheCommandWrote(t *testing.T) {
	ws, _ := fixture(t)
	sb := New(filepath.Join(t.TempDir(), "copies"), Options{})
	var out syncBuf
	j := job(ws, &out, "mkdir -p build && echo obj > build/x.o && echo y > src/calc.py")
	j.KeepDir = filepath.Join(t.TempDir(), "keep")
	_, err := sb.Run(context.Background(), j)
	must(t, err)
	if b, err := os.ReadFile(filepath.Join(j.KeepDir, "build", "x.o")); err != nil || string(b) != "obj\n" {
		t.Errorf("build/x.o kept: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(j.KeepDir, "run.sh")); err == nil {
		t.Error("a file the command did not write was kept")
	}
}
