package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/shadow-dev/shadow/engine"
)

// progressPrinter shows a headless run's progress on stderr, one line per
// event that matters, so a person or agent waiting sees it move while
// stdout stays the report alone.
func progressPrinter(w io.Writer) func(engine.Event) {
	total, done := 0, 0
	return func(ev engine.Event) {
		switch ev.Kind {
		case engine.KindRunStarted:
			total = len(ev.Hypotheses)
			fmt.Fprintf(w, "shadow: %d hypothesis(es), %s mode, %d at once\n", total, ev.Mode, ev.Jobs)
			if n := runtime.NumCPU(); ev.Jobs > n && total > n {
				fmt.Fprintf(w, "shadow: notice: -j %d is more than the %d cores: hypotheses share them, so each runs slower and a timeout may be contention (see cpus and load in the report)\n", ev.Jobs, n)
			}
		case engine.KindHypFinished:
			r := ev.Result
			if ev.Attempt > 0 { // a --confirm rerun
				fmt.Fprintf(w, "shadow: confirm %s run %d: %d of %d passed\n", r.Name, ev.Attempt, r.Passes, r.Runs)
				return
			}
			done++
			counts := ""
			if r.Tests != nil {
				counts = fmt.Sprintf(", %d passed, %d failed", r.Tests.Passed, r.Tests.Failed)
			}
			fmt.Fprintf(w, "shadow: [%d/%d] %s %s in %.1fs%s\n", done, total, r.Name, r.Status, float64(r.DurationMS)/1000, counts)
		}
	}
}
