//go:build linux

package inplace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/test/e2e"
)

func TestE2EInplaceAutoFallback(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	before := e2e.Contents(t, e.WS, false)
	spec := e.InplaceSpec()
	out, stderr, code, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--json", "-C", e.WS, spec, "--", "sh", "-c",
		`test ! -L vlink || exit 3; test -d new/dir || exit 4; `+e2e.CheckScript)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	r := e.Report(out)
	// auto falls back to copy mode, where a copy can be made (docs/modes.md:
	// overlay, else copy, else in-place).
	if r.Mode != "copy" || r.Winner == nil || *r.Winner != "fix" {
		t.Fatalf("mode %q winner %v", r.Mode, r.Winner)
	}
	if e2e.ByName(r)["gone"].Status != "failed" || e2e.ByName(r)["baseline"].Status != "failed" {
		t.Fatalf("statuses: %+v", r.Hypotheses)
	}
	notice := 0
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "overlay unavailable") {
			notice++
			if !strings.Contains(l, "create namespaces: EPERM") || !strings.Contains(l, "shadow probe") {
				t.Fatalf("notice: %q", l)
			}
		}
	}
	if notice != 1 {
		t.Fatalf("want one fallback notice line, got %d:\n%s", notice, stderr)
	}
	if got := e2e.Contents(t, e.WS, false); got != before {
		t.Fatalf("workspace changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}
}

func TestE2EInplaceModeOverlayRefused(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	before := e2e.Contents(t, e.WS, true)
	_, stderr, code, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--mode", "overlay", "-C", e.WS, e.InplaceSpec(), "--", "true")
	if code != 3 || !strings.Contains(stderr, "overlay mode is unavailable: create namespaces failed: EPERM") || !strings.Contains(stderr, "fix: ") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if got := e2e.Contents(t, e.WS, true); got != before {
		t.Fatal("workspace changed")
	}
	out, _, code, _ := e.RunEnv(e2e.NoUserNS, "probe", "--json")
	if code != 0 || !strings.Contains(out, `"mode": "copy"`) || !strings.Contains(out, `"errno": "EPERM"`) {
		t.Fatalf("probe: %d %s", code, out)
	}
}

// Kill -9 of shadow at each step of the in-place cycle; the next shadow
// invocation on the workspace (or shadow gc) restores it byte for byte:
// with mtimes when the command had not started yet.
func TestE2EInplaceKill9ThenNextRunRestores(t *testing.T) {
	e2e.Parallel(t)
	steps := []struct {
		step       string
		journal    bool
		commandRan bool
	}{
		{"before-journal", false, false},
		{"after-journal", true, false},
		{"mid-write", true, false},
		{"during-command", true, true},
		{"mid-restore", true, true},
	}
	for _, s := range steps {
		for _, via := range []string{"run", "gc"} {
			t.Run(s.step+"/"+via, func(t *testing.T) {
				e := e2e.NewInplaceEnv(t)
				before := e2e.Contents(t, e.WS, !s.commandRan)
				spec := e.Spec(map[string]any{"hypotheses": []any{
					map[string]any{"name": "fix", "edits": []any{
						map[string]any{"path": "v.txt", "content": "good\n"},
						map[string]any{"path": "vlink", "content": "plain now\n"},
						map[string]any{"path": "new/dir/n.txt", "content": "n\n"},
					}, "delete": []string{"old.txt", "lib"}},
				}})
				_, stderr, _, killed := e.RunEnv(append(e2e.NoUserNS, "SHADOW_TEST_CRASH_AT="+s.step),
					"--headless", "--mode", "inplace", "-C", e.WS, spec, "--", "sh", "-c", "sleep 0.2; "+e2e.CheckScript)
				if !killed {
					t.Fatalf("shadow was not killed at %s:\n%s", s.step, stderr)
				}
				var out string
				var code int
				if via == "run" {
					// Any invocation on the workspace: here a run whose
					// command checks it sees the original.
					base := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}}})
					out, stderr, code, _ = e.RunEnv(e2e.NoUserNS, "--headless", "--mode", "inplace", "--json", "-C", e.WS, base, "--", "sh", "-c", `test "$(cat v.txt)" = bad`)
					if code != 0 {
						t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
					}
				} else {
					out, stderr, code, _ = e.RunEnv(nil, "gc")
					if code != 0 {
						t.Fatalf("gc exit %d\n%s\n%s", code, out, stderr)
					}
					stderr += out
				}
				said := strings.Contains(stderr, "restored the checkout from an interrupted in-place run")
				if said != s.journal {
					t.Fatalf("restore notice = %v, want %v:\n%s", said, s.journal, stderr)
				}
				// The run's own journal for "baseline" changes nothing, so
				// the mtimes compare too when the crash came before the
				// command.
				if got := e2e.Contents(t, e.WS, !s.commandRan); got != before {
					t.Fatalf("checkout not restored:\nbefore:\n%s\nafter:\n%s", before, got)
				}
			})
		}
	}
}

func TestE2EInplaceConcurrentEditKept(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
	}})
	// "The user" saves v.txt while the command runs.
	out, stderr, code, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--mode", "inplace", "--json", "-C", e.WS, spec, "--", "sh", "-c",
		`printf 'user\n' > v.tmp && mv v.tmp v.txt`)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "v.txt")); string(b) != "user\n" {
		t.Fatalf("user's edit clobbered: %q", b)
	}
	r := e.Report(out)
	h := e2e.ByName(r)["fix"]
	if h.Error == nil || !strings.Contains(*h.Error, "left v.txt alone") || !strings.Contains(stderr, "left v.txt alone") {
		t.Fatalf("not reported: error %v\n%s", h.Error, stderr)
	}
}

func TestE2EInplaceTwoInvocationsTakeTurns(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	before := e2e.Contents(t, e.WS, false)
	log := filepath.Join(e.Dir, "log")
	var wg sync.WaitGroup
	type res struct {
		out, stderr string
		code        int
	}
	results := make([]res, 2)
	for i := range 2 {
		wg.Add(1)
		spec := filepath.Join(e.Dir, fmt.Sprintf("spec%d.json", i))
		os.WriteFile(spec, []byte(fmt.Sprintf(`{"hypotheses":[{"name":"h%d","edits":[{"path":"v.txt","content":"run %d\n"}]},{"name":"h%db","edits":[{"path":"v.txt","content":"run %d\n"}]}]}`, i, i, i, i)), 0o644)
		go func() {
			defer wg.Done()
			script := fmt.Sprintf(`echo start %d >> %s; sleep 0.3; test "$(cat v.txt)" = "run %d" || exit 9; echo end %d >> %s`, i, log, i, i, log)
			// The log is outside the checkout: --writable lets the sealed
			// command write it (Landlock; docs/modes.md, "inplace").
			out, stderr, code, _ := e.RunEnv(e2e.NoUserNS, "--headless", "--mode", "inplace", "--json", "--writable", e.Dir, "-C", e.WS, spec, "--", "sh", "-c", script)
			results[i] = res{out, stderr, code}
		}()
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	waited := false
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s\n%s", i, r.code, r.out, r.stderr)
		}
		if rep := e.Report(r.out); rep.Stale {
			t.Fatalf("run %d saw the other's hypothesis: stale %v", i, rep.StalePaths)
		}
		waited = waited || strings.Contains(r.stderr, "waiting for another shadow run on this workspace")
	}
	if !waited {
		t.Fatal("no one said it was waiting")
	}
	b, _ := os.ReadFile(log)
	f := strings.Fields(string(b))
	// Whole runs take turns: start/end of one run's two hypotheses, then the other's.
	if len(f) != 16 || f[1] != f[7] || f[9] != f[15] || f[1] == f[9] {
		t.Fatalf("runs interleaved:\n%s", b)
	}
	if got := e2e.Contents(t, e.WS, false); got != before {
		t.Fatalf("workspace changed:\n%s\n%s", before, got)
	}
}

func TestE2EGCRemovesOnlyUnusedSandboxDirs(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	base := filepath.Join(e.State, "shadow", "sandboxes")
	old := time.Now().Add(-time.Hour)
	mk := func(name string, age time.Time) string {
		d := filepath.Join(base, name)
		for _, sub := range []string{"upper/x", "work/work"} {
			if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		os.WriteFile(filepath.Join(d, "upper/x/f"), []byte("x"), 0o444)
		os.Chmod(filepath.Join(d, "work/work"), 0) // as overlayfs leaves it
		os.Chtimes(d, age, age)
		return d
	}
	stale, busy, fresh := mk("hyp-stale", old), mk("hyp-busy", old), mk("hyp-fresh", time.Now())
	other := filepath.Join(base, "not-ours")
	os.MkdirAll(other, 0o755)
	os.Chtimes(other, old, old)
	// A process working inside one of them.
	holder := exec.Command("sleep", "30")
	holder.Dir = filepath.Join(busy, "upper")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	out, stderr, code, _ := e.RunEnv(nil, "gc")
	if code != 0 {
		t.Fatalf("gc exit %d\n%s\n%s", code, out, stderr)
	}
	for d, want := range map[string]bool{stale: false, busy: true, fresh: true, other: true} {
		if _, err := os.Lstat(d); (err == nil) != want {
			t.Fatalf("%s present=%v, want %v\n%s", d, err == nil, want, out)
		}
	}
	if !strings.Contains(out, "removed "+stale) || !strings.Contains(out, "kept "+busy+": in use") {
		t.Fatalf("gc said:\n%s", out)
	}
}
