package judge

import (
	"context"
	"strings"
	"testing"
)

// A hyp_finished that comes after the baseline's carries fixed and broken
// against it, so a live view need not wait for the run's end; one that
// comes before carries null (unknown), never an invented [].
func TestHypFinishedCarriesProvisionalFixedBroken(t *testing.T) {
	sb := &fakeSandbox{
		out:  map[string]string{"baseline": "FAIL t1\nok t2\n", "plus": "ok t1\nok t2\n", "worse": "ok t1\nFAIL t2\n", "early": "ok t1\nok t2\n"},
		exit: map[string]int{"baseline": 1, "worse": 1},
	}
	// Serial (the fake is not parallel): early runs before the baseline.
	cfg, events := testConfig(t, sb,
		hyp("early", file("lib.rs", "x\n")),
		hyp("baseline"),
		hyp("plus", file("lib.rs", "a + b\n")),
		hyp("worse", file("lib.rs", "a * b\n")),
	)
	runFake(context.Background(), cfg)
	got := map[string]*Result{}
	for _, ev := range *events {
		if ev.Kind == KindHypFinished {
			got[ev.Hyp] = ev.Result
		}
	}
	if r := got["plus"]; r == nil || strings.Join(r.Fixed, ",") != "t1" || r.Broken == nil || len(r.Broken) != 0 {
		t.Errorf("plus's hyp_finished: %+v", r)
	}
	if r := got["worse"]; r == nil || strings.Join(r.Fixed, ",") != "t1" || strings.Join(r.Broken, ",") != "t2" {
		t.Errorf("worse's hyp_finished: %+v", r)
	}
	if r := got["early"]; r == nil || r.Fixed != nil || r.Broken != nil {
		t.Errorf("early finished before the baseline, its fixed/broken must be null: %+v", r)
	}
}
