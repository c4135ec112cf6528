package judge

import (
	"slices"
	"testing"
)

// A note compares with the other candidates that passed only: a file a
// failing candidate also touches is still the passing one's own, a rule
// another pass matches is nobody's, and a candidate with no passing peer
// has no note at all.
func TestContrastAgainstOtherPasses(t *testing.T) {
	all := []contrastIn{
		{name: "a", passed: true, paths: []string{"calc.py", "setup.cfg", "util.py"}, hits: map[string][]string{"py-argv": {"calc.py:3 reads sys.argv"}, "py-env": {"calc.py:4 reads PYTEST_CURRENT_TEST"}}},
		{name: "b", passed: true, paths: []string{"calc.py"}, hits: map[string][]string{"py-env": {"calc.py:9 reads PYTEST_CURRENT_TEST"}}},
		{name: "c", passed: false, paths: []string{"calc.py", "util.py"}},
	}
	a := contrastOf(all[0], all)
	if !slices.Equal(a.Files, []string{"util.py"}) || !slices.Equal(a.Configs, []string{"setup.cfg"}) || !slices.Equal(a.Introspection, []string{"calc.py:3 reads sys.argv"}) {
		t.Errorf("a: %+v", a)
	}
	if want := "only its code: calc.py:3 reads sys.argv; only it edits runner config setup.cfg; only it touches util.py"; a.Note != want {
		t.Errorf("a: note %q, want %q", a.Note, want)
	}
	if b := contrastOf(all[1], all); b.Note != "" || len(b.Files)+len(b.Configs)+len(b.Introspection) != 0 {
		t.Errorf("b: %+v, want nothing of its own", b)
	}
	// c failed: it is compared with a and b, and does nothing they do not.
	if c := contrastOf(all[2], all); c == nil || c.Note != "" {
		t.Errorf("c: %+v", c)
	}
	if lone := contrastOf(all[0], all[:1]); lone != nil {
		t.Errorf("a alone: %+v, want nil (nothing to compare with)", lone)
	}
}

// shadow merge recomputes files across the shards and keeps each
// shard's introspection.
func TestMergeContrastAcrossShards(t *testing.T) {
	rs := []*Result{
		{Name: "baseline", Status: StatusFailed},
		{Name: "a", Status: StatusPassed, Files: []string{"calc.py", "util.py"}, Contrast: &Contrast{Files: []string{"calc.py", "util.py"}, Introspection: []string{"calc.py:3 reads sys.argv"}}},
		{Name: "b", Status: StatusPassed, Files: []string{"calc.py"}},
	}
	MergeContrast(rs)
	if rs[0].Contrast != nil {
		t.Errorf("baseline: %+v", rs[0].Contrast)
	}
	if c := rs[1].Contrast; c == nil || !slices.Equal(c.Files, []string{"util.py"}) || !slices.Equal(c.Introspection, []string{"calc.py:3 reads sys.argv"}) || c.Note != "only its code: calc.py:3 reads sys.argv; only it touches util.py" {
		t.Errorf("a: %+v", c)
	}
	if c := rs[2].Contrast; c == nil || c.Note != "" {
		t.Errorf("b: %+v", c)
	}
}
