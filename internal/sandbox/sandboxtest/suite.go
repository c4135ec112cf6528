// Package sandboxtest is the conformance suite every shadow sandbox runs
// (docs/modes.md), in the spirit of containerd's snapshotter test suite: a
// sandbox declares what it promises, and the suite checks each promise it
// makes, with a command that tries to break it.
//
//	func TestConformance(t *testing.T) {
//		sandboxtest.Run(t, func(t *testing.T, d sandboxtest.Dirs) engine.Sandbox {
//			return mysandbox.New(d.Sandboxes).Mask(d.State)
//		}, sandboxtest.Promises{Parallel: true, SamePath: true, HostileProof: true})
//	}
//
// Every sandbox: each hypothesis sees only its own files, the checkout is
// byte-identical afterwards, nothing is left running, timeouts and cancels
// end the whole tree, thousands of deletions work. Hostile-proof sandboxes
// (the namespace ones): a hostile command trying each known route (state
// dir, siblings' upper dirs, inherited descriptors, /proc/1/cwd, umount,
// capabilities, devices and sysctls as root, the caller's tmux, TIOCSTI,
// git in a worktree) changes nothing it must not.
//
// The test binary must be able to act as the sandbox's helper processes
// (for overlay: call overlay.MaybeInit first in TestMain).
package sandboxtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

// Promises is what a sandbox declares about itself: the capabilities a
// driver honours, engine.Capabilities, the one struct the run's refusals
// read too. The suite checks Parallel, SamePath, HostileProof and
// InCheckout, and that they are what engine.CapabilitiesOf says of the
// sandbox's mode (a promise made here and not in the table, or the other
// way round, is a test failure, not a silent disagreement).
type Promises = engine.Capabilities

// Dirs are shadow's own directories for one test, all outside the
// workspace. The factory's sandbox keeps its per-job directories under
// Sandboxes, and a hostile-proof one hides State (which holds Sandboxes)
// from the command.
type Dirs struct {
	State     string // stands for the resolved state dir: records, journals
	Sandboxes string // State/sandboxes: per-job working directories
}

// Factory makes the sandbox under test; it may t.Skip with the reason the
// machine cannot run it.
type Factory func(t *testing.T, d Dirs) engine.Sandbox

// Run runs the suite as subtests of t.
func Run(t *testing.T, factory Factory, p Promises) {
	s := &suite{factory: factory, p: p}
	t.Run("OwnFilesOnly", s.ownFilesOnly)
	t.Run("CheckoutIdentical", s.checkoutIdentical)
	t.Run("ThousandsOfDeletes", s.thousandsOfDeletes)
	t.Run("NothingLeftRunning", s.nothingLeftRunning)
	t.Run("DaemonEndedBeforeRestore", s.daemonEndedBeforeRestore)
	t.Run("TimeoutEndsTree", func(t *testing.T) { s.endsTree(t, false) })
	t.Run("CancelEndsTree", func(t *testing.T) { s.endsTree(t, true) })
	if p.HostileProof {
		runHostile(t, s)
	}
}

type suite struct {
	factory Factory
	p       Promises
}

// fixture is one test's checkout and sandbox.
type fixture struct {
	t    *testing.T
	ws   string
	dirs Dirs
	sb   engine.Sandbox
	env  []string // the job's environment
}

func (s *suite) setup(t *testing.T) *fixture {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	d := Dirs{State: state, Sandboxes: filepath.Join(state, "sandboxes")}
	if err := os.MkdirAll(d.Sandboxes, 0o700); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ws: t.TempDir(), dirs: d, env: os.Environ()}
	f.write("calc.py", "def add(a, b):\n    return a - b\n", 0o644)
	f.write("pkg/old.txt", "old\n", 0o644)
	f.write("target/debug/cache.bin", "warm", 0o644)
	f.write("readonly.txt", "ro\n", 0o444)
	f.sb = s.factory(t, d)
	if f.sb.Parallel() != s.p.Parallel {
		t.Errorf("Parallel() = %v, but the sandbox promises Parallel: %v", f.sb.Parallel(), s.p.Parallel)
	}
	if m := f.sb.Mode(); m != engine.ModeRemote {
		want := engine.CapabilitiesOf(m)
		if got := checked(s.p); got != checked(want) {
			t.Errorf("the sandbox promises %+v, but engine.CapabilitiesOf(%q) says %+v", got, m, checked(want))
		}
	}
	return f
}

// checked is the part of c the suite tests.
func checked(c engine.Capabilities) engine.Capabilities {
	return engine.Capabilities{Parallel: c.Parallel, SamePath: c.SamePath, HostileProof: c.HostileProof, InCheckout: c.InCheckout}
}

func (f *fixture) write(rel, content string, mode os.FileMode) {
	f.t.Helper()
	p := filepath.Join(f.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		f.t.Fatal(err)
	}
}

// syncBuffer is an Output the test can read while the job runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// job is a job over the fixture's checkout running sh -c script.
func (f *fixture) job(hyp engine.Hypothesis, script string, out *syncBuffer) engine.Job {
	return engine.Job{Workspace: f.ws, Hyp: hyp, Command: []string{"sh", "-c", script}, Env: f.env,
		Output: out, Net: "host", Tmp: "shared"}
}

// run runs script in a job and returns its outcome and output; a sandbox
// error fails the test.
func (f *fixture) run(ctx context.Context, hyp engine.Hypothesis, script string) (engine.Outcome, string) {
	f.t.Helper()
	var out syncBuffer
	o, err := f.sb.Run(ctx, f.job(hyp, script, &out))
	if err != nil {
		f.t.Fatalf("sandbox failed: %v\noutput:\n%s", err, out.String())
	}
	return o, out.String()
}

func file(p, content string) engine.File {
	return engine.File{Path: p, Content: []byte(content), Mode: 0o644}
}

func (s *suite) ownFilesOnly(t *testing.T) {
	f := s.setup(t)
	a := engine.Hypothesis{Name: "a", Files: []engine.File{file("only-a.txt", "a"), file("calc.py", "A")}}
	b := engine.Hypothesis{Name: "b", Files: []engine.File{file("only-b.txt", "b"), file("calc.py", "B")}, Deletes: []string{"pkg/old.txt"}}
	// Each writes a file of its own while the other may be running, then
	// looks for the other's traces.
	script := func(me string) string {
		write := `echo ` + me + ` > wrote-` + me + `; `
		if s.p.InCheckout {
			write = "" // it would stay in the checkout, seen by the next job
		}
		return write + `sleep 0.3; ls; echo; cat calc.py; echo; test -e pkg/old.txt && echo OLD-PRESENT; true`
	}
	outs := make([]string, 2)
	var wg sync.WaitGroup
	for i, h := range []engine.Hypothesis{a, b} {
		runOne := func() {
			_, outs[i] = f.run(context.Background(), h, script(h.Name))
		}
		if s.p.Parallel {
			wg.Add(1)
			go func() { defer wg.Done(); runOne() }()
		} else {
			runOne()
		}
	}
	wg.Wait()
	check := func(me, other, out string) {
		wants := []string{"only-" + me + ".txt", strings.ToUpper(me)}
		if !s.p.InCheckout {
			wants = append(wants, "wrote-"+me)
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s does not see its own %q:\n%s", me, want, out)
			}
		}
		for _, bad := range []string{"only-" + other + ".txt", "wrote-" + other, "\n" + strings.ToUpper(other) + "\n"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s sees %q of %s:\n%s", me, bad, other, out)
			}
		}
	}
	check("a", "b", outs[0])
	check("b", "a", outs[1])
	if !strings.Contains(outs[0], "OLD-PRESENT") || strings.Contains(outs[1], "OLD-PRESENT") {
		t.Errorf("b's deletion: a must still see pkg/old.txt, b must not:\na: %s\nb: %s", outs[0], outs[1])
	}
}

func (s *suite) checkoutIdentical(t *testing.T) {
	f := s.setup(t)
	before := s.snapshot(t, f.ws)
	hyp := engine.Hypothesis{Name: "w", Files: []engine.File{file("calc.py", "x"), file("new/dir/f.txt", "n")}, Deletes: []string{"pkg"}}
	script := `pwd; echo built > target/debug/cache.bin; rm -f readonly.txt; mkdir -p made/deep && echo m > made/deep/m; chmod 700 calc.py; ln -s /etc/passwd link; mv target moved`
	if s.p.InCheckout {
		script = `pwd; cat calc.py new/dir/f.txt >/dev/null; test ! -e pkg`
	}
	o, out := f.run(context.Background(), hyp, script)
	if o.ExitCode != 0 {
		t.Fatalf("exit %d:\n%s", o.ExitCode, out)
	}
	if s.p.SamePath && strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]) != f.ws {
		t.Errorf("the command ran in %q, not at the workspace's own path %s", out, f.ws)
	}
	if after := s.snapshot(t, f.ws); after != before {
		t.Errorf("the checkout changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// snapshot is Snapshot, without modification times for a sandbox that
// runs in the checkout (it gives restored files a fresh one on purpose).
func (s *suite) snapshot(t *testing.T, root string) string {
	if s.p.InCheckout {
		return snapshot(t, root, false)
	}
	return Snapshot(t, root)
}

// thousandsOfDeletes: a hypothesis removing 5,000 paths (its configuration
// alone is larger than one environment string may be).
func (s *suite) thousandsOfDeletes(t *testing.T) {
	f := s.setup(t)
	var dels []string
	for i := 0; i < 5000; i++ {
		p := fmt.Sprintf("many/sub%02d/file-with-a-rather-long-name-%05d.txt", i%50, i)
		f.write(p, "x", 0o644)
		dels = append(dels, p)
	}
	before := s.snapshot(t, f.ws)
	o, out := f.run(context.Background(), engine.Hypothesis{Name: "del", Deletes: dels}, `find many -type f | wc -l`)
	if o.ExitCode != 0 || strings.TrimSpace(out) != "0" {
		t.Errorf("after 5000 deletions: exit %d, files left: %s", o.ExitCode, out)
	}
	if s.snapshot(t, f.ws) != before {
		t.Errorf("the checkout changed after 5000 deletions")
	}
}

// hostileTree leaves behind what a test suite may: a daemon that clears
// its environment and leaves the session (env -i setsid: no variable or
// process group leads back to the job), a double fork, a child that
// ignores SIGTERM, and a fork loop. Every process's command line holds
// marker.
func hostileTree(marker string) string {
	return `env -i PATH=/usr/bin:/bin setsid sleep ` + marker + `1 </dev/null >/dev/null 2>&1 &
( (env -i PATH=/usr/bin:/bin sleep ` + marker + `2) & ) </dev/null >/dev/null 2>&1
env -i PATH=/usr/bin:/bin sh -c 'trap "" TERM; while :; do sleep ` + marker + `3; done' </dev/null >/dev/null 2>&1 &
env -i PATH=/usr/bin:/bin sh -c 'while :; do sleep ` + marker + `4 & sleep 0.01; done' </dev/null >/dev/null 2>&1 &
sleep 0.3
`
}

func (s *suite) nothingLeftRunning(t *testing.T) {
	f := s.setup(t)
	marker := "9871." + strconv.Itoa(os.Getpid())
	o, out := f.run(context.Background(), engine.Hypothesis{Name: "d"},
		`setsid sleep `+marker+` >/dev/null 2>&1 </dev/null & (sleep `+marker+`1 >/dev/null 2>&1 </dev/null &); `+hostileTree(marker+"0")+`echo started`)
	if o.ExitCode != 0 {
		t.Fatalf("exit %d: %s", o.ExitCode, out)
	}
	NoProcess(t, marker)
}

// daemonEndedBeforeRestore: a daemon that clears its environment, leaves
// the session, ignores SIGTERM and waits for the checkout's original
// calc.py to come back, to write into it. The job's processes must all be
// gone before anything is restored (in-place mode) or removed: the
// checkout is byte-identical after the job, and stays so.
func (s *suite) daemonEndedBeforeRestore(t *testing.T) {
	f := s.setup(t)
	before := s.snapshot(t, f.ws)
	marker := "7412." + strconv.Itoa(os.Getpid())
	hyp := engine.Hypothesis{Name: "daemon", Files: []engine.File{file("calc.py", "def add(a, b):\n    return a + b\n")}}
	daemon := `env -i PATH=/usr/bin:/bin setsid sh -c 'trap "" TERM; : ` + marker + `; while :; do grep -q "a - b" calc.py 2>/dev/null && echo x >> calc.py; sleep 0.02; done' </dev/null >/dev/null 2>&1 &`
	o, out := f.run(context.Background(), hyp, daemon+` sleep 0.1; echo started`)
	if o.ExitCode != 0 {
		t.Fatalf("exit %d: %s", o.ExitCode, out)
	}
	// Time for a surviving daemon to see the original and write.
	time.Sleep(300 * time.Millisecond)
	if after := s.snapshot(t, f.ws); after != before {
		t.Errorf("the checkout was written after the job:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	NoProcess(t, marker)
}

func (s *suite) endsTree(t *testing.T, cancel bool) {
	f := s.setup(t)
	marker := "6541." + strconv.Itoa(os.Getpid())
	if cancel {
		marker += "0"
	}
	ctx, stop := context.WithTimeout(context.Background(), 800*time.Millisecond)
	if cancel {
		ctx, stop = context.WithCancel(context.Background())
		time.AfterFunc(800*time.Millisecond, stop)
	}
	defer stop()
	start := time.Now()
	var out syncBuffer
	_, err := f.sb.Run(ctx, f.job(engine.Hypothesis{Name: "slow"},
		`trap "" TERM INT HUP; sleep `+marker+` & setsid sleep `+marker+`1 & `+hostileTree(marker+"3")+`sleep `+marker+`2`, &out))
	if err != nil {
		t.Fatalf("sandbox failed: %v\n%s", err, out.String())
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("ending the job took %v", d)
	}
	NoProcess(t, marker)
	if entries, _ := os.ReadDir(f.dirs.Sandboxes); len(entries) != 0 {
		t.Errorf("per-job directories left behind: %v", names(entries))
	}
}

func names(es []os.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// Snapshot records every path under root: type, mode, size, modification
// time and content (symlinks: their target).
func Snapshot(t testing.TB, root string) string {
	t.Helper()
	return snapshot(t, root, true)
}

func snapshot(t testing.TB, root string, mtimes bool) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %s %d", rel, fi.Mode(), fi.Size())
		if mtimes {
			fmt.Fprintf(&b, " %d", fi.ModTime().UnixNano())
		}
		switch {
		case fi.Mode().IsRegular():
			c, _ := os.ReadFile(p)
			b.Write(c)
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			b.WriteString(" -> " + l)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// NoProcess fails if a process whose command line contains marker is
// still alive a few seconds on.
func NoProcess(t testing.TB, marker string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		found := ""
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), marker) {
				found = p + ": " + string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
			}
		}
		if found == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s outlived its job", found)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
