package judge

import (
	"strings"
	"testing"
)

// The tests from before the candidates join every hypothesis's common
// part; where a candidate writes or deletes one of their paths itself,
// its version stays its own and theirs is what its judged run puts back
// (ReplacedCommon); a path the spec's common part sets too is refused. A
// run judged as written (allow_test_edits) gets them over its own.
func TestWithTestsFrom(t *testing.T) {
	tf := &TestsFrom{Kind: "dir", Files: []File{{Path: "tests/test_repro.py", Content: []byte("ours\n"), Mode: 0o644}}}
	hyps := []Hypothesis{
		{Name: "baseline"},
		{Name: "fix", Files: []File{{Path: "calc.py", Content: []byte("fixed\n")}}},
		{Name: "cheat", Files: []File{{Path: "tests/test_repro.py", Content: []byte("theirs\n")}}},
		{Name: "gone", Deletes: []string{"tests/test_repro.py"}},
	}
	out, err := WithTestsFrom(hyps, tf)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range out[:2] {
		if len(h.Common) != 1 || h.Common[0].Path != "tests/test_repro.py" || len(h.ReplacedCommon) != 0 {
			t.Errorf("%s: common %v replaced %v", h.Name, h.Common, h.ReplacedCommon)
		}
	}
	for _, h := range out[2:] {
		if len(h.Common) != 0 || len(h.ReplacedCommon) != 1 || string(h.ReplacedCommon[0].Content) != "ours\n" {
			t.Errorf("%s: common %v replaced %v", h.Name, h.Common, h.ReplacedCommon)
		}
	}
	if len(hyps[0].Common) != 0 {
		t.Errorf("the input was changed")
	}
	if j := overTestsFrom(out[2].WithCommon(), tf); len(j.Files) != 1 || string(j.Files[0].Content) != "ours\n" {
		t.Errorf("cheat judged as written: %v", j.Files)
	}
	if j := overTestsFrom(out[3].WithCommon(), tf); len(j.Deletes) != 0 || len(j.Files) != 1 || string(j.Files[0].Content) != "ours\n" {
		t.Errorf("gone judged as written: files %v deletes %v", j.Files, j.Deletes)
	}
	common := []Hypothesis{{Name: "fix", Common: []File{{Path: "tests/test_repro.py"}}}}
	if _, err := WithTestsFrom(common, tf); err == nil || !strings.Contains(err.Error(), "tests/test_repro.py is also in the spec's common part") {
		t.Errorf("common overlap: %v", err)
	}
}
