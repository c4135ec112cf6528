//go:build linux

package run

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// The home layer (internal/sandbox/warm/home.go, docs/modes.md "The home
// layer"): the caches builds write outside the workspace, fed only by a
// baseline that ran to its end.

// homeEnv is a Go module of three packages with no imports outside it
// (a cold build compiles three packages and nothing of the standard
// library, so the test takes seconds), a fresh $HOME and Go's caches at
// their defaults inside it.
func homeEnv(t *testing.T) *e2e.Env {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	e := e2e.NewEnv(t)
	home := t.TempDir()
	// A $HOME the unprivileged user can enter (TempDir is 0700 below a
	// directory only its owner may list).
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	e.ExtraEnv = append(e.ExtraEnv, "HOME="+home, "GOCACHE=", "GOMODCACHE=", "GOPATH=", "XDG_CACHE_HOME=", "GOFLAGS=",
		"GOTOOLCHAIN=local", "GOPROXY=off", "GOTELEMETRY=off", "PATH="+filepath.Dir(goBin)+":/usr/bin:/bin")
	e.Write("go.mod", "module m\n\ngo 1.21\n", 0o644)
	e.Write("a/a.go", "package a\n\nfunc A() int { return 1 }\n", 0o644)
	e.Write("b/b.go", "package b\n\nimport \"m/a\"\n\nfunc B() int { return a.A() + 1 }\n", 0o644)
	e.Write("c/c.go", "package c\n\nfunc C() int { return 3 }\n", 0o644)
	// Compiled packages are counted from go build -x: one "compile -o"
	// per package not found in the build cache.
	e.Write("build.sh", "go build -x ./... 2>&1 | grep -c 'compile -o' | sed 's/^/compiled /'\necho '1 passed'\n", 0o755)
	return e
}

func homeDir(e *e2e.Env) string {
	for _, kv := range e.ExtraEnv {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	return ""
}

// compiled is the "compiled N" a build.sh hypothesis printed.
func compiled(t *testing.T, r *engine.Result) int {
	t.Helper()
	for _, l := range strings.Split(r.OutputTail, "\n") {
		if rest, ok := strings.CutPrefix(l, "compiled "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(rest))
			if err == nil {
				return n
			}
		}
	}
	t.Fatalf("%s printed no count (status %s):\n%s", r.Name, r.Status, r.OutputTail)
	return 0
}

func homeSpec(e *e2e.Env, extra ...map[string]any) string {
	hyps := []any{map[string]any{"name": "baseline"},
		map[string]any{"name": "edit-c", "edits": []map[string]any{{"path": "c/c.go", "content": "package c\n\nfunc C() int { return 4 }\n"}}}}
	for _, x := range extra {
		hyps = append(hyps, x)
	}
	return e.Spec(map[string]any{"hypotheses": hyps})
}

// TestE2EHomeLayerWarmsTheNextRuns: in a cold $HOME the first run's
// baseline runs alone and compiles all three packages; the candidate,
// started on what it wrote, compiles only the package it changed. The
// second run finds the layer: its baseline compiles nothing. The user's
// $HOME is never written. Both modes.
func TestE2EHomeLayerWarmsTheNextRuns(t *testing.T) {
	for _, mode := range []string{"overlay", "copy"} {
		t.Run(mode, func(t *testing.T) {
			e := homeEnv(t)
			before := e2e.Tree(t, homeDir(e))
			spec := homeSpec(e)
			for run := 1; run <= 2; run++ {
				out, errOut, code := e.Shadow("--headless", "--json", "--mode", mode, "-C", e.WS, spec, "--", "sh", "build.sh")
				if code != 0 {
					t.Fatalf("run %d: exit %d\n%s\n%s", run, code, out, errOut)
				}
				r := e.Report(out)
				if r.Warm == nil || r.Warm.Home == nil {
					t.Fatalf("run %d: no warm.home in the report: %+v", run, r.Warm)
				}
				h, by := r.Warm.Home, e2e.ByName(r)
				base, cand := compiled(t, by["baseline"]), compiled(t, by["edit-c"])
				switch run {
				case 1:
					if !h.BaselineFirst || h.Updated != 1 || base != 3 || cand > 1 {
						t.Errorf("cold run: home %+v, baseline compiled %d, candidate %d; want the baseline first (3), the candidate only c (1), generation 1", *h, base, cand)
					}
				case 2:
					if mode == "copy" && base+cand <= 4 {
						// Go keys the module's own packages by directory,
						// and a copy slot's path is whichever slot the job
						// got: the one in the cold baseline's slot finds
						// its packages, the other compiles them (3 + 1,
						// or 0 + 3; cold, 3 + 3).
						base, cand = 0, 0
					}
					if h.BaselineFirst || !h.Used || h.Generation != 1 || base != 0 || cand > 1 {
						t.Errorf("warm run: home %+v, baseline compiled %d, candidate %d; want generation 1 used, nothing compiled by the baseline", *h, base, cand)
					}
				}
			}
			if e2e.Tree(t, homeDir(e)) != before {
				t.Errorf("the user's $HOME was written")
			}
		})
	}
}

// TestE2EHomeLayerKeepsNoCandidateWrite: a candidate forges what a later
// build or test would trust: it appends to every index (-a) and output
// (-d) entry of Go's build cache and plants new ones (a forged test
// result among them), drops a .pth into pip's cache and a tarball into
// npm's. None of it reaches the layer, the next run's baseline, or the
// user's own caches, in either mode. The candidate runs after the
// baseline has fed the layer (the second run), so the layer's entries
// are in its view to be rewritten.
func TestE2EHomeLayerKeepsNoCandidateWrite(t *testing.T) {
	// The caches where the command's environment puts them: copy mode
	// points XDG_CACHE_HOME and npm_config_cache at the job's own.
	forge := `set -e
gc=$(go env GOCACHE); xdg=${XDG_CACHE_HOME:-$HOME/.cache}; npm=${npm_config_cache:-$HOME/.npm}
mkdir -p "$gc/ff" "$xdg/pip/http" "$npm/_cacache"
for f in $(find "$gc" -name '*-a' -o -name '*-d'); do echo FORGED >> "$f" || true; done
echo "v1 FORGED test result" > "$gc/ff/ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff-a"
echo FORGED > "$gc/ff/ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff-d"
echo 'import os; os.system("echo FORGED")' > "$xdg/pip/evil.pth"
echo FORGED > "$npm/_cacache/left-pad-1.3.0.tgz"
echo '1 passed'
`
	look := "hits=$(grep -rl FORGED \"$(go env GOCACHE)\" \"${XDG_CACHE_HOME:-$HOME/.cache}\" \"${npm_config_cache:-$HOME/.npm}\" 2>/dev/null | wc -l); echo \"forged $hits\"; echo '1 passed'\n"
	for _, mode := range []string{"overlay", "copy"} {
		t.Run(mode, func(t *testing.T) {
			e := homeEnv(t)
			e.Write("forge.sh", forge, 0o755)
			e.Write("look.sh", look, 0o755)
			before := e2e.Tree(t, homeDir(e))
			spec := homeSpec(e, map[string]any{"name": "forger", "edits": []map[string]any{{"path": "build.sh", "content": "sh forge.sh\n"}}})
			for run := 1; run <= 2; run++ {
				out, errOut, code := e.Shadow("--headless", "--json", "--mode", mode, "-C", e.WS, spec, "--", "sh", "build.sh")
				if code != 0 {
					t.Fatalf("run %d: exit %d\n%s\n%s", run, code, out, errOut)
				}
				if s := e2e.ByName(e.Report(out))["forger"]; s.Status != "passed" {
					t.Fatalf("run %d: the forger %s:\n%s", run, s.Status, s.OutputTail)
				}
			}
			// The next run's baseline (and a candidate) look for it.
			spec = e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}, map[string]any{"name": "peer", "edits": []map[string]any{{"path": "x.txt", "content": "x\n"}}}}})
			out, errOut, _ := e.Shadow("--headless", "--json", "--mode", mode, "-C", e.WS, spec, "--", "sh", "look.sh")
			r := e.Report(out)
			for _, h := range r.Hypotheses {
				if !strings.Contains(h.OutputTail, "forged 0") {
					t.Errorf("%s of the next run sees the forger's writes:\n%s\n%s", h.Name, h.OutputTail, errOut)
				}
			}
			if r.Warm == nil || r.Warm.Home == nil || !r.Warm.Home.Used {
				t.Errorf("the next run stacked no home layer: %+v", r.Warm)
			}
			if hits := grepTree(t, filepath.Join(e.State, "shadow"), "FORGED"); len(hits) > 0 {
				t.Errorf("shadow's state holds the forger's writes: %v", hits)
			}
			if e2e.Tree(t, homeDir(e)) != before {
				t.Errorf("the user's $HOME was written")
			}
		})
	}
}

// grepTree lists the regular files under root holding s.
func grepTree(t *testing.T, root, s string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > 64<<20 {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestE2EHomeLayerNotFedByAnUnfinishedBaseline: a baseline that timed out,
// a cancelled run's and a stale run's leave no generation behind, even
// when the baseline ran first and its writes were stacked for the run's
// own candidates.
func TestE2EHomeLayerNotFedByAnUnfinishedBaseline(t *testing.T) {
	e := homeEnv(t)
	homeMeta := func() []string {
		m, _ := filepath.Glob(filepath.Join(e.State, "shadow", "warm-home", "*", "meta.json"))
		return m
	}
	// Timed out: the baseline builds, then sleeps past the timeout.
	marker := fmt.Sprintf("30.%d", os.Getpid())
	e.Write("slow.sh", "sh build.sh; sleep "+marker+"\n", 0o755)
	out, errOut, _ := e.Shadow("--headless", "--json", "--timeout", "2s", "-C", e.WS, homeSpec(e), "--", "sh", "slow.sh")
	r := e.Report(out)
	if h := r.Warm.Home; h == nil || h.Updated != 0 || !strings.Contains(h.Note, "timed_out") {
		t.Errorf("timed out: home %+v\n%s", h, errOut)
	}
	// Stale: the checkout changes while the baseline runs (it has built
	// by then; the run goes on to its end).
	staleMarker := fmt.Sprintf("3.%d", os.Getpid())
	e.Write("stale.sh", "sh build.sh; sleep "+staleMarker+"\n", 0o755)
	c := e.Cmd("--headless", "--json", "-C", e.WS, homeSpec(e), "--", "sh", "stale.sh")
	var buf strings.Builder
	c.Stdout = &buf
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e2e.WaitPresent(t, staleMarker) // the baseline has built and sleeps
	e.Write("a/a.go", "package a\n\nfunc A() int { return 2 }\n", 0o644)
	_ = c.Wait()
	r = e.Report(buf.String())
	if h := r.Warm.Home; !r.Stale || h == nil || h.Updated != 0 {
		t.Errorf("stale run (stale %v): home %+v", r.Stale, h)
	}
	// Cancelled: SIGINT while the baseline runs.
	c = e.Cmd("--headless", "--json", "-C", e.WS, homeSpec(e), "--", "sh", "slow.sh")
	buf.Reset()
	c.Stdout = &buf
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e2e.WaitPresent(t, marker) // the baseline has built and sleeps
	_ = c.Process.Signal(os.Interrupt)
	_ = c.Wait()
	if r = e.Report(buf.String()); r.Warm == nil || r.Warm.Home == nil || r.Warm.Home.Updated != 0 {
		t.Errorf("cancelled run: warm %+v", r.Warm)
	}
	if m := homeMeta(); len(m) != 0 {
		t.Errorf("a generation was made: %v", m)
	}
}

func fileCount(root string) int {
	n := 0
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		n++
		return nil
	})
	return n
}
