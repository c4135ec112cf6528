package judge

import (
	"github.com/shadow-dev/shadow/engine/report"

	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A candidate whose added code sniffs the runner passes like the fix but is
// suspicious (file and line named), ranks below it and cannot win; a line
// the checkout already had is not the candidate's; --allow-suspicious lifts
// it; a judge file (a test) is not scanned as code.
func TestScanMakesASniffingCandidateSuspicious(t *testing.T) {
	pass := "ok t1\nok t2\n"
	sb := &fakeSandbox{out: map[string]string{"base": "ok t1\nFAIL t2\n", "fix": pass, "sniff": pass, "old": pass, "testonly": pass}, exit: map[string]int{"base": 1}}
	orig := "import sys\nif 'pytest' in sys.modules:\n    pass\n\ndef f(x):\n    return x\n"
	cfg, _ := testConfig(t, sb,
		hyp("base"),
		hyp("sniff", file("src/m.py", "import sys\nif 'pytest' in sys.modules:\n    pass\n\ndef f(x):\n    if 'pytest' in sys.modules:\n        return 2\n    return x\n")),
		hyp("old", file("src/m.py", orig+"\ndef g():\n    return 1\n")),
		hyp("testonly", file("tests/helpers.py", "import sys\nUNDER = 'pytest' in sys.modules\n")),
		hyp("fix", file("src/m.py", "import sys\nif 'pytest' in sys.modules:\n    pass\n\ndef f(x):\n    return x + 0\n")),
	)
	os.MkdirAll(filepath.Join(cfg.Workspace, "src"), 0o755)
	os.WriteFile(filepath.Join(cfg.Workspace, "src/m.py"), []byte(orig), 0o644)
	rep := runFake(context.Background(), cfg)
	m := map[string]*Result{}
	for _, r := range rep.Hypotheses {
		m[r.Name] = r
	}
	s := m["sniff"]
	if s.Suspicious == nil || !strings.Contains(*s.Suspicious, "src/m.py:6 checks whether it runs under pytest/unittest") {
		t.Fatalf("sniff suspicious %v", s.Suspicious)
	}
	if m["old"].Suspicious != nil || m["fix"].Suspicious != nil || m["testonly"].Suspicious != nil {
		t.Errorf("flagged: old %v fix %v testonly %v", m["old"].Suspicious, m["fix"].Suspicious, m["testonly"].Suspicious)
	}
	if rep.Winner == nil || *rep.Winner == "sniff" || s.Rank < m["fix"].Rank {
		t.Errorf("winner %v sniff rank %d fix rank %d", rep.Winner, s.Rank, m["fix"].Rank)
	}

	// Only the suspicious one passes: no winner; --allow-suspicious: it wins.
	sb.exit["fix"], sb.exit["old"], sb.exit["testonly"] = 1, 1, 1
	rep = runFake(context.Background(), cfg)
	if rep.Winner != nil {
		t.Errorf("winner %s with only a suspicious pass", *rep.Winner)
	}
	var text strings.Builder
	report.WriteText(&text, rep)
	if !strings.Contains(text.String(), "no winner: only suspicious or tampered hypotheses passed (sniff); --allow-suspicious") ||
		!strings.Contains(text.String(), "[suspicious: code src/m.py:6 checks whether it runs under pytest/unittest") {
		t.Errorf("text report:\n%s", text.String())
	}
	cfg.AllowSuspicious = true
	rep = runFake(context.Background(), cfg)
	if rep.Winner == nil || *rep.Winner != "sniff" {
		t.Errorf("--allow-suspicious: winner %v", rep.Winner)
	}
	text.Reset()
	report.WriteText(&text, rep)
	if !strings.Contains(text.String(), "[suspicious, allowed: code src/m.py:6") {
		t.Errorf("text report:\n%s", text.String())
	}
}
