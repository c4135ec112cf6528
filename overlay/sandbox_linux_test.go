package overlay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
)

func TestMain(m *testing.M) {
	MaybeInit()
	os.Exit(m.Run())
}

// needOverlay skips with the probe's reason where the machine cannot shadow.
func needOverlay(t *testing.T) *Sandbox {
	t.Helper()
	base := t.TempDir()
	v := Probe(base)
	if v.Mode != "overlay" {
		t.Skipf("overlay unavailable here: %s (%s)", v.Reason, v.Fix)
	}
	return New(base, v.Options)
}

// workspace makes a small checkout with a warm "build directory".
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	write := func(p, s string, mode os.FileMode) {
		full := filepath.Join(ws, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("calc.py", "def add(a, b):\n    return a - b\n", 0o644)
	write("pkg/old.txt", "old\n", 0o644)
	write("target/debug/cache.bin", "warm", 0o644)
	write("readonly.txt", "ro\n", 0o444)
	return ws
}

// snapshot records every path's mode, size, mtime and content.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(rel + " " + fi.Mode().String() + " " + strconv.FormatInt(fi.Size(), 10) + " " + fi.ModTime().String())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.Write(c)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func run(t *testing.T, sb *Sandbox, ctx context.Context, ws string, hyp engine.Hypothesis, argv ...string) (engine.Outcome, string, error) {
	t.Helper()
	var out bytes.Buffer
	o, err := sb.Run(ctx, engine.Job{Workspace: ws, Hyp: hyp, Command: argv, Env: os.Environ(), Output: &out, Net: "host", Tmp: "shared"})
	return o, out.String(), err
}

func TestOverlaySeesOwnFilesAndLeavesWorkspaceIdentical(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	before := snapshot(t, ws)
	hyp := engine.Hypothesis{
		Name:    "plus",
		Files:   []engine.File{{Path: "calc.py", Content: []byte("def add(a, b):\n    return a + b\n"), Mode: 0o644}, {Path: "new/dir/f.txt", Content: []byte("new"), Mode: 0o600}},
		Deletes: []string{"pkg/old.txt"},
	}
	o, out, err := run(t, sb, context.Background(), ws, hyp, "sh", "-c",
		`cat calc.py; cat new/dir/f.txt; echo; test -e pkg/old.txt && echo OLD-PRESENT; echo built > target/debug/cache.bin; pwd`)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if o.ExitCode != 0 {
		t.Fatalf("exit %d: %s", o.ExitCode, out)
	}
	for _, want := range []string{"a + b", "new", ws} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "OLD-PRESENT") {
		t.Errorf("deleted file visible inside: %s", out)
	}
	if after := snapshot(t, ws); after != before {
		t.Errorf("workspace changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	entries, _ := os.ReadDir(sb.base)
	if len(entries) != 0 {
		t.Errorf("sandbox dirs left behind: %v", entries)
	}
}

func TestOverlayHypothesesAreIsolated(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	a := engine.Hypothesis{Name: "a", Files: []engine.File{{Path: "only-a.txt", Content: []byte("a"), Mode: 0o644}}}
	b := engine.Hypothesis{Name: "b", Files: []engine.File{{Path: "only-b.txt", Content: []byte("b"), Mode: 0o644}}}
	_, outA, errA := run(t, sb, context.Background(), ws, a, "sh", "-c", "ls; sleep 0.3")
	_, outB, errB := run(t, sb, context.Background(), ws, b, "ls")
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if !strings.Contains(outA, "only-a.txt") || strings.Contains(outA, "only-b.txt") {
		t.Errorf("a sees: %s", outA)
	}
	if !strings.Contains(outB, "only-b.txt") || strings.Contains(outB, "only-a.txt") {
		t.Errorf("b sees: %s", outB)
	}
}

func TestOverlaySameIDsAndNoExtraPrivilege(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	_, out, err := run(t, sb, context.Background(), ws, engine.Hypothesis{Name: "ids"}, "sh", "-c",
		`echo "uid=$(id -u) gid=$(id -g)"; grep -E '^Cap(Eff|Amb|Inh|Prm)' /proc/self/status; if echo x >> readonly.txt; then echo WROTE-RO; fi`)
	if err != nil {
		t.Fatal(err, out)
	}
	want := "uid=" + strconv.Itoa(os.Getuid()) + " gid=" + strconv.Itoa(os.Getgid())
	if !strings.Contains(out, want) {
		t.Errorf("want %q inside, got:\n%s", want, out)
	}
	if os.Getuid() != 0 {
		if strings.Contains(out, "WROTE-RO") {
			t.Errorf("a 0444 file was writable inside for a non-root user:\n%s", out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Cap") && !strings.HasSuffix(l, "0000000000000000") {
				t.Errorf("command has capabilities: %s", l)
			}
		}
	}
}

// noProcess fails if any process's command line contains marker.
func noProcess(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		found := ""
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), marker) {
				found = p
			}
		}
		if found == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s with %q outlived the run", found, marker)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestOverlayDaemonDiesWithRun(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	marker := "987." + strconv.Itoa(os.Getpid())
	o, out, err := run(t, sb, context.Background(), ws, engine.Hypothesis{Name: "d"}, "sh", "-c",
		"setsid sleep "+marker+" >/dev/null 2>&1 < /dev/null & sleep 0.2; echo started")
	if err != nil || o.ExitCode != 0 {
		t.Fatal(err, o, out)
	}
	noProcess(t, marker)
}

func TestOverlayTimeoutEndsChildren(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	marker := "654." + strconv.Itoa(os.Getpid())
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, out, err := run(t, sb, ctx, ws, engine.Hypothesis{Name: "slow"}, "sh", "-c", "sleep "+marker+" & sleep "+marker+"1")
	if err != nil {
		t.Fatal(err, out)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %v", d)
	}
	noProcess(t, marker)
	entries, _ := os.ReadDir(sb.base)
	if len(entries) != 0 {
		t.Errorf("sandbox dirs left behind after timeout: %v", entries)
	}
}

func TestOverlayCleansUnwritableDirs(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	_, out, err := run(t, sb, context.Background(), ws, engine.Hypothesis{Name: "ro"}, "sh", "-c",
		"mkdir -p ro/inner && echo x > ro/inner/f && chmod 000 ro/inner && chmod 555 ro && rm -f calc.py")
	if err != nil {
		t.Fatal(err, out)
	}
	if entries, _ := os.ReadDir(sb.base); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestOverlayCollectsOnlyWhatCommandWrote(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	if err := os.WriteFile(filepath.Join(ws, "stale.xml"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: engine.Hypothesis{Name: "j"}, Output: &out, Env: os.Environ(),
		Command: []string{"sh", "-c", "echo fresh > report.xml"}, Collect: []string{"report.xml", "stale.xml"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(o.Collected["report.xml"]) != "fresh\n" {
		t.Errorf("collected %q", o.Collected["report.xml"])
	}
	if _, ok := o.Collected["stale.xml"]; ok {
		t.Errorf("stale file from the workspace collected")
	}
}

func TestOverlayIsolatedNetworkHasOnlyLoopback(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: engine.Hypothesis{Name: "n"}, Output: &out, Env: os.Environ(),
		Net: "isolated", Command: []string{"sh", "-c", "cat /proc/net/dev | tail -n +3 | cut -d: -f1"}})
	if err != nil || o.ExitCode != 0 {
		t.Fatal(err, o, out.String())
	}
	if got := strings.Fields(out.String()); len(got) != 1 || got[0] != "lo" {
		t.Errorf("interfaces inside: %q", got)
	}
}

// --tmp private: a fresh /tmp, also when the workspace itself lives under
// /tmp (t.TempDir, the demo), which the tmpfs must not hide.
func TestOverlayPrivateTmpKeepsWorkspaceUnderTmp(t *testing.T) {
	sb := needOverlay(t)
	ws, err := os.MkdirTemp("/tmp", "shadow-privtmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(ws)
	os.WriteFile(filepath.Join(ws, "v.txt"), []byte("lower\n"), 0o644)
	marker, _ := os.CreateTemp("/tmp", "shadow-outside-")
	marker.Close()
	defer os.Remove(marker.Name())
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: engine.Hypothesis{Name: "p",
		Files: []engine.File{{Path: "h.txt", Content: []byte("hyp\n"), Mode: 0o644}}}, Output: &out, Env: os.Environ(), Tmp: "private",
		Command: []string{"sh", "-c", "cat v.txt h.txt; pwd; test -e " + marker.Name() + " && echo OUTSIDE-VISIBLE; echo scratch > /tmp/scratch"}})
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("%v %+v\n%s", err, o, out.String())
	}
	got := out.String()
	if !strings.Contains(got, "lower\nhyp\n"+ws+"\n") || strings.Contains(got, "OUTSIDE-VISIBLE") {
		t.Errorf("inside a private /tmp:\n%s", got)
	}
	if _, err := os.Stat("/tmp/scratch"); err == nil {
		t.Errorf("a write to the private /tmp reached the real one")
	}
}
