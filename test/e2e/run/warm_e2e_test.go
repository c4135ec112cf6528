//go:build linux

package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// compiling lists the crates a hypothesis's cargo output says it compiled.
func compiling(t *testing.T, r *engine.Result) []string {
	t.Helper()
	b, err := os.ReadFile(r.Log)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "Compiling" {
			out = append(out, f[1])
		}
	}
	sort.Strings(out)
	return out
}

// TestE2EWarmCargoWorkspace is the case: a two-crate workspace
// whose core crate changed after the checkout's last build. The first
// run's baseline rebuilds both crates and feeds the layer; the second
// run's baseline compiles nothing and a candidate editing app compiles
// only app; --no-warm shows what that saved. The checkout, target/
// included, stays byte-identical throughout.
func TestE2EWarmCargoWorkspace(t *testing.T) {
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		if _, err := os.Stat("/root/.cargo/bin/cargo"); err == nil && os.Geteuid() == 0 {
			cargo = "/root/.cargo/bin/cargo"
		} else {
			t.Skip("cargo is not reachable on PATH for this user (rustup installs it under the installing user's home)")
		}
	}
	t.Setenv("PATH", filepath.Dir(cargo)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, k := range []string{"RUSTC_WRAPPER", "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
	if _, err := os.Stat("testdata/warm-cargo"); err != nil {
		t.Skipf("the fixture is not beside the test binary: %v", err)
	}
	e := e2e.NewEnv(t)
	if err := os.CopyFS(e.WS, os.DirFS("testdata/warm-cargo")); err != nil {
		t.Fatal(err)
	}
	e.GitCheckout()
	build := exec.Command(cargo, "build", "--offline", "--tests")
	build.Dir = e.WS
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cargo build in the checkout: %v\n%s", err, out)
	}
	// A winner applied to core since that build.
	e.Write("core/src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    b + a\n}\n", 0o644)
	before := e2e.Tree(t, e.WS)
	appEdit := map[string]any{"name": "app-edit", "edits": []map[string]any{{"path": "app/src/lib.rs", "content": "pub fn total(xs: &[i32]) -> i32 {\n    xs.iter().fold(0, |acc, x| core_lib::add(*x, acc))\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn sums() {\n        assert_eq!(super::total(&[1, 2, 3]), 6);\n    }\n}\n"}}}
	run := func(args ...string) *engine.Report {
		t.Helper()
		spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}, appEdit}})
		out, errOut, code := e.Shadow(append(append([]string{"--headless", "--json", "-C", e.WS}, args...), spec, "--", "cargo", "test", "--offline")...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if got := e2e.Tree(t, e.WS); got != before {
			t.Fatalf("the checkout changed")
		}
		return e.Report(out)
	}

	r1 := run()
	m := e2e.ByName(r1)
	if got := compiling(t, m["baseline"]); strings.Join(got, " ") != "app core_lib" {
		t.Errorf("first run's baseline compiled %v, want app and core_lib (core changed since the checkout's build)", got)
	}
	if r1.Warm == nil || r1.Warm.Used || r1.Warm.Updated != 1 {
		t.Fatalf("first run warm = %+v, want not used and generation 1 made", r1.Warm)
	}

	r2 := run()
	m = e2e.ByName(r2)
	if got := compiling(t, m["baseline"]); len(got) != 0 {
		t.Errorf("second run's baseline compiled %v, want nothing: the layer holds the first baseline's build", got)
	}
	if got := compiling(t, m["app-edit"]); strings.Join(got, " ") != "app" {
		t.Errorf("a candidate editing app compiled %v, want only app", got)
	}
	if r2.Warm == nil || !r2.Warm.Used || r2.Warm.Generation != 1 || r2.Warm.Bytes == 0 {
		t.Errorf("second run warm = %+v, want generation 1 used", r2.Warm)
	}

	r3 := run("--no-warm")
	if got := compiling(t, e2e.ByName(r3)["baseline"]); strings.Join(got, " ") != "app core_lib" {
		t.Errorf("with --no-warm the baseline compiled %v, want both crates again", got)
	}
	if r3.Warm != nil {
		t.Errorf("--no-warm: report warm = %+v, want absent", r3.Warm)
	}
}

// warmSpace is a git checkout whose build script the baseline runs as
// checked in; target/ and *.pyc are ignored.
func warmSpace(t *testing.T, script string) *e2e.Env {
	e := e2e.NewEnv(t)
	e.Write(".gitignore", "target/\n*.pyc\n", 0o644)
	e.Write("src.txt", "source\n", 0o644)
	e.Write("build.sh", script, 0o755)
	e.GitCheckout()
	return e
}

// TestE2EWarmOnlyTheBaselineFeedsTheLayer: a candidate that plants build
// outputs (target/evil, a .pyc, a rewritten target/out) never reaches the
// layer; a baseline that writes a tracked source, a setuid file, a fifo or
// a symlink out of the workspace gets none of them in; the next run's
// hypotheses see exactly the baseline's ignored outputs.
func TestE2EWarmOnlyTheBaselineFeedsTheLayer(t *testing.T) {
	e := warmSpace(t, `set -e
mkdir -p target
echo base > target/out
echo rewritten > src.txt
echo x > target/suid && chmod 4755 target/suid
mkfifo target/fifo
ln -s /etc target/etc
ln -s ../src.txt target/src-link
echo compiled > m.pyc
echo "1 passed"
`)
	before := e2e.Tree(t, e.WS)
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "baseline"},
		map[string]any{"name": "evil", "edits": []map[string]any{{"path": "build.sh", "mode": "0755", "content": "mkdir -p target; echo evil > target/evil; echo evil > target/out; echo evil > evil.pyc; echo '1 passed'\n"}}},
	}})
	out, errOut, code := e.Shadow("--headless", "--json", "-C", e.WS, spec, "--", "sh", "build.sh")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if r := e.Report(out); r.Warm == nil || r.Warm.Updated != 1 {
		t.Fatalf("warm = %+v, want generation 1 made", r.Warm)
	}
	got := e.WarmLayer()
	if strings.Join(keys(got), " ") != "m.pyc target/out target/src-link" || got["target/out"] != "base\n" {
		t.Fatalf("layer holds %v, want only the baseline's m.pyc, target/out (\"base\") and target/src-link", got)
	}
	if e2e.Tree(t, e.WS) != before {
		t.Fatal("the checkout changed")
	}
	// The next run sees the layer, in overlay and in copy mode.
	for _, mode := range []string{"overlay", "copy"} {
		spec = e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "look", "edits": []map[string]any{{"path": "look.sh", "content": "cat target/out m.pyc; test ! -e target/evil && test ! -e evil.pyc && test \"$(cat src.txt)\" = source && echo '1 passed'\n"}}}}})
		out, errOut, code = e.Shadow("--headless", "--json", "--mode", mode, "-C", e.WS, spec, "--", "sh", "look.sh")
		r := e.Report(out)
		if code != 0 || !strings.Contains(r.Hypotheses[0].OutputTail, "base\ncompiled\n") {
			t.Errorf("%s: exit %d, output %q (want the layer's files, and none of the candidate's)\n%s", mode, code, r.Hypotheses[0].OutputTail, errOut)
		}
		if r.Warm == nil || !r.Warm.Used || r.Warm.Updated != 0 {
			t.Errorf("%s: warm = %+v, want used, not updated (no baseline)", mode, r.Warm)
		}
	}
	// --copy-skip leaves a heavy directory out of each copy: the layer
	// must not bring it back.
	out, _, _ = e.Shadow("--headless", "--json", "--mode", "copy", "--copy-skip", "target", "-C", e.WS, spec, "--", "sh", "-c", "test ! -e target/out && echo '1 passed'")
	if r := e.Report(out); r.Hypotheses[0].Status != "passed" || r.Warm == nil || r.Warm.Used {
		t.Errorf("copy mode with --copy-skip: %s, warm %+v; want target/ left out and the layer not used", r.Hypotheses[0].Status, r.Warm)
	}
	if e2e.Tree(t, e.WS) != before {
		t.Fatal("the checkout changed")
	}
}

// TestE2EWarmNotFedByAnUnfinishedBaseline: a baseline that timed out
// leaves the layer as it was.
func TestE2EWarmNotFedByAnUnfinishedBaseline(t *testing.T) {
	e := warmSpace(t, "mkdir -p target; echo half > target/out; sleep 30\n")
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	out, errOut, _ := e.Shadow("--headless", "--json", "--timeout", "1s", "-C", e.WS, spec, "--", "sh", "build.sh")
	r := e.Report(out)
	if r.Hypotheses[0].Status != "timed_out" || r.Warm == nil || r.Warm.Updated != 0 || !strings.Contains(r.Warm.Note, "timed_out") {
		t.Fatalf("status %s warm %+v, want a timed-out baseline feeding nothing\n%s", r.Hypotheses[0].Status, r.Warm, errOut)
	}
	if l := e.WarmLayer(); l != nil {
		t.Errorf("layer made from a timed-out baseline: %v", l)
	}
}

// TestE2EWarmConcurrentRunsAndGC: two runs on one workspace at once each
// feed the layer; it ends consistent (meta.json names a complete
// generation holding both outputs), then gc over its cap removes it.
func TestE2EWarmConcurrentRunsAndGC(t *testing.T) {
	e := warmSpace(t, "n=$(date +%s%N); mkdir -p target; echo $n > target/out-$n; echo '1 passed'\n")
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := e.Cmd("--headless", "--json", "-C", e.WS, spec, "--", "sh", "build.sh")
			if err := c.Run(); err != nil {
				codes[i] = -1
			}
		}(i)
	}
	wg.Wait()
	if codes[0] != 0 || codes[1] != 0 {
		t.Fatalf("exit codes %v", codes)
	}
	got := e.WarmLayer()
	if len(got) != 2 {
		t.Fatalf("layer holds %v, want both runs' outputs", keys(got))
	}
	// Once both runs ended, only the current generation is left: no older
	// one, no harvest, no half-built one.
	left, _ := filepath.Glob(filepath.Join(e.State, "shadow", "warm", "*", "*"))
	var dirs []string
	for _, p := range left {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, filepath.Base(p))
		}
	}
	if strings.Join(dirs, " ") != "gen-000002" {
		t.Errorf("warm dir holds %v, want only gen-000002", dirs)
	}
	out, errOut, code := e.Shadow("gc", "--warm-max", "1")
	if code != 0 || !strings.Contains(out, "removed the warm layer of "+e.WS) {
		t.Fatalf("gc exit %d:\n%s\n%s", code, out, errOut)
	}
	if l := e.WarmLayer(); l != nil {
		t.Errorf("gc over the cap left the layer: %v", l)
	}
}

// TestE2EWarmNotFedByAStaleRun: the checkout changed while the baseline
// built, so its outputs may belong to neither state of the sources.
func TestE2EWarmNotFedByAStaleRun(t *testing.T) {
	marker := "1.50" + strconv.Itoa(os.Getpid()) // about 1.5 s, and this test's own
	e := warmSpace(t, "mkdir -p target; echo out > target/out; sleep "+marker+"; echo '1 passed'\n")
	spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
	c := e.Cmd("--headless", "--json", "-C", e.WS, spec, "--", "sh", "build.sh")
	var out strings.Builder
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Edited once the baseline is sleeping (a fixed 700 ms was before
	// its sandbox started on a loaded machine, so the run was not stale).
	e2e.WaitPresent(t, marker)
	e.Write("src.txt", "edited meanwhile\n", 0o644)
	_ = c.Wait()
	r := e.Report(out.String())
	if !r.Stale || r.Warm == nil || r.Warm.Updated != 0 || !strings.Contains(r.Warm.Note, "stale") {
		t.Fatalf("stale %v warm %+v, want a stale run feeding nothing", r.Stale, r.Warm)
	}
	if l := e.WarmLayer(); l != nil {
		t.Errorf("layer made by a stale run: %v", l)
	}
}
