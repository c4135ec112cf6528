//go:build linux

package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/test/e2e"
)

// The home layer's crash safety (docs/modes.md "The home layer": lock,
// generations, crash-safe swap, as the workspace's warm layer): whatever
// happens to a run while it promotes its baseline's writes, the layer the
// next runs find is one they can use.

// homeLayerDirs are the entries of the workspace's home layer directories
// (one per layout), and the meta.json of each, decoded.
func homeLayerDirs(t *testing.T, e *e2e.Env) (entries []string, metas []map[string]any) {
	t.Helper()
	kds, _ := filepath.Glob(filepath.Join(e.State, "shadow", "warm-home", "*"))
	for _, kd := range kds {
		des, err := os.ReadDir(kd)
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			if de.IsDir() {
				entries = append(entries, de.Name())
			}
		}
		b, err := os.ReadFile(filepath.Join(kd, "meta.json"))
		if err != nil {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Errorf("%s/meta.json: %v", kd, err)
			continue
		}
		m["dir"] = kd
		metas = append(metas, m)
	}
	sort.Strings(entries)
	return entries, metas
}

// checkHomeLayer: the layer is one complete generation that meta.json
// names, not marked as being updated, and nothing else is left beside it
// (no older generation, half-built one or harvest) once no run is live.
func checkHomeLayer(t *testing.T, e *e2e.Env) {
	t.Helper()
	entries, metas := homeLayerDirs(t, e)
	if len(metas) != 1 {
		t.Fatalf("want one home layer, found meta.json %v (entries %v)", metas, entries)
	}
	m := metas[0]
	if u, _ := m["updating"].(bool); u {
		t.Errorf("meta.json still says updating: %v", m)
	}
	gen := int(m["generation"].(float64))
	want := fmt.Sprintf("gen-%06d", gen)
	if strings.Join(entries, " ") != want {
		t.Errorf("home layer holds %v, want only %s (meta.json %v)", entries, want, m)
	}
	if n := fileCount(filepath.Join(m["dir"].(string), want)); n < 2 {
		t.Errorf("generation %s holds %d entries", want, n)
	}
}

// TestE2EHomeLayerTwoRunsAtOnce: two runs on one workspace in a cold
// $HOME, at once: each runs its baseline first and stacks its own
// provisional generation; both pass, and the layer ends one generation
// (the later commit finds the other's newer and keeps it) that the next
// run stacks, its baseline compiling nothing. Both modes.
func TestE2EHomeLayerTwoRunsAtOnce(t *testing.T) {
	for _, mode := range []string{"overlay", "copy"} {
		t.Run(mode, func(t *testing.T) {
			e := homeEnv(t)
			spec := homeSpec(e)
			var wg sync.WaitGroup
			outs := make([]string, 2)
			codes := make([]int, 2)
			for i := range outs {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					c := e.Cmd("--headless", "--json", "--mode", mode, "-C", e.WS, spec, "--", "sh", "build.sh")
					var out strings.Builder
					c.Stdout = &out
					if err := c.Run(); err != nil {
						codes[i] = -1
					}
					outs[i] = out.String()
				}(i)
			}
			wg.Wait()
			for i, out := range outs {
				r := e.Report(out)
				if codes[i] != 0 || r.Winner == nil {
					t.Fatalf("run %d: exit %d, winner %v", i, codes[i], r.Winner)
				}
				if r.Warm == nil || r.Warm.Home == nil {
					t.Fatalf("run %d: no warm.home: %+v", i, r.Warm)
				}
			}
			checkHomeLayer(t, e)
			out, errOut, code := e.Shadow("--headless", "--json", "--mode", mode, "-C", e.WS, spec, "--", "sh", "build.sh")
			if code != 0 {
				t.Fatalf("the next run: exit %d\n%s\n%s", code, out, errOut)
			}
			r := e.Report(out)
			if h := r.Warm.Home; h == nil || !h.Used || h.BaselineFirst {
				t.Fatalf("the next run did not stack the layer: %+v", h)
			}
			if mode == "overlay" {
				// (In copy mode a job's slot path decides what Go finds: see
				// TestE2EHomeLayerWarmsTheNextRuns.)
				if n := compiled(t, e2e.ByName(r)["baseline"]); n != 0 {
					t.Errorf("the next run's baseline compiled %d packages, want 0", n)
				}
			}
			checkHomeLayer(t, e)
		})
	}
}

// TestE2EHomeLayerKill9DuringPromotion: a run is killed (SIGKILL, nothing
// of it runs after) while it changes the layer's generation in place, its
// baseline's writes half moved in. The point is seen from outside:
// meta.json marked as updating, polled; the baseline writes a few
// thousand cache files each run so that promotion lasts long enough to be
// caught, and the test tries again (another run, more files) when a
// promotion ended before the poll saw it. The next run passes, the layer
// it leaves is consistent, and the run after stacks it.
func TestE2EHomeLayerKill9DuringPromotion(t *testing.T) {
	e := homeEnv(t)
	// Each run's baseline (and candidate) writes files no earlier run
	// wrote: every promotion has thousands of new files to take.
	e.Write("build.sh", `d=${XDG_CACHE_HOME:-$HOME/.cache}/many/$(date +%s%N)
mkdir -p "$d"
i=0; while [ $i -lt 3000 ]; do : > "$d/f$i"; i=$((i+1)); done
go build -x ./... 2>&1 | grep -c 'compile -o' | sed 's/^/compiled /'
echo '1 passed'
`, 0o755)
	spec := homeSpec(e)
	out, errOut, code := e.Shadow("--headless", "--json", "-C", e.WS, spec, "--", "sh", "build.sh")
	if code != 0 || e.Report(out).Warm.Home.Updated == 0 {
		t.Fatalf("the first run made no layer: exit %d\n%s\n%s", code, out, errOut)
	}
	killed := false
	for try := 0; try < 8 && !killed; try++ {
		c := e.Cmd("--headless", "--json", "-C", e.WS, spec, "--", "sh", "build.sh")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = c.Wait(); close(done) }()
	poll:
		for {
			select {
			case <-done:
				break poll
			default:
			}
			if _, metas := homeLayerDirs(t, e); len(metas) == 1 {
				if u, _ := metas[0]["updating"].(bool); u {
					_ = c.Process.Signal(syscall.SIGKILL)
					<-done
					killed = true
					break poll
				}
			}
			time.Sleep(time.Millisecond)
		}
	}
	if !killed {
		t.Skip("no promotion was caught in 8 runs (each ended before the poll saw it): nothing to test on this machine")
	}
	_, metas := homeLayerDirs(t, e)
	if len(metas) != 1 {
		t.Fatalf("meta.json after the kill: %v", metas)
	}
	if u, _ := metas[0]["updating"].(bool); !u {
		t.Fatalf("the kill came after the promotion: %v", metas[0])
	}
	// The next run passes: the layer cut short is never stacked (it may
	// hold half of a baseline's writes), its baseline feeds a new one.
	out, errOut, code = e.Shadow("--headless", "--json", "-C", e.WS, spec, "--", "sh", "build.sh")
	r := e.Report(out)
	if code != 0 || r.Winner == nil {
		t.Fatalf("the run after the kill: exit %d winner %v\n%s", code, r.Winner, errOut)
	}
	for _, h := range r.Hypotheses {
		if h.Status != engine.StatusPassed {
			t.Errorf("%s %s after the kill:\n%s", h.Name, h.Status, h.OutputTail)
		}
	}
	// (Used is then the provisional generation its baseline, run first,
	// made for its candidates.)
	if h := r.Warm.Home; h == nil || !h.BaselineFirst || h.Updated == 0 || !strings.Contains(h.Note, "cut short") {
		t.Errorf("the run after the kill: home %+v, want the cut-short layer left unused, the baseline first and a new generation fed", h)
	}
	checkHomeLayer(t, e)
	// And the run after that stacks it: its baseline compiles nothing.
	out, errOut, code = e.Shadow("--headless", "--json", "-C", e.WS, spec, "--", "sh", "build.sh")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	r = e.Report(out)
	if h := r.Warm.Home; h == nil || !h.Used {
		t.Errorf("the layer the recovering run fed is not stacked: %+v", h)
	}
	if n := compiled(t, e2e.ByName(r)["baseline"]); n != 0 {
		t.Errorf("the baseline compiled %d packages on the recovered layer, want 0", n)
	}
	checkHomeLayer(t, e)
}
