package cli

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// More hypotheses at once than cores gets a notice; within them, none.
func TestProgressNoticesJobsOverCores(t *testing.T) {
	n := runtime.NumCPU()
	hyps := make([]string, n+1)
	var b bytes.Buffer
	progressPrinter(&b)(engine.Event{Kind: engine.KindRunStarted, Hypotheses: hyps, Mode: "overlay", Jobs: n + 1})
	if !strings.Contains(b.String(), "more than the") {
		t.Errorf("no notice for -j %d on %d cores:\n%s", n+1, n, b.String())
	}
	b.Reset()
	progressPrinter(&b)(engine.Event{Kind: engine.KindRunStarted, Hypotheses: hyps, Mode: "overlay", Jobs: n})
	if strings.Contains(b.String(), "notice") {
		t.Errorf("notice within the cores:\n%s", b.String())
	}
}
