package tui

import (
	"fmt"
	"testing"

	"github.com/muesli/termenv"
	"github.com/shadow-dev/shadow/engine"
)

// BenchmarkFrameUnderFlood draws the frame of 8 running hypotheses whose
// output keeps coming, as at every redraw tick of bench/tui_cpu.sh.
func BenchmarkFrameUnderFlood(b *testing.B) {
	m := newTestModel(b, termenv.ANSI256, 120, 40, manyEvents(8))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for j := range 8 {
			m.Update(EventMsg(engine.Event{Kind: engine.KindOutput, Hyp: fmt.Sprintf("hypothesis-%02d", j), Text: fmt.Sprintf("line %d of a flood of output\n", i)}))
		}
		m.Update(tickMsg(t0))
	}
}
