package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/overlay"
)

// TestDocsModesOverlaySealIsTheCode: docs/modes.md's overlay section
// lists what the seal holds and what it does not, each line exactly one
// of overlay.SealHolds (with the conformance routes that try to break
// it) or overlay.SealDoesNot, both ways; every route named is a subtest
// of the conformance suite; and the probe's "protects against" line is
// made of the same sentences. A claim the doc makes and the code does
// not, or a route no test runs, fails here.
func TestDocsModesOverlaySealIsTheCode(t *testing.T) {
	b, err := os.ReadFile("docs/modes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## overlay\n")
	if !ok {
		t.Fatal("docs/modes.md has no ## overlay section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	list := func(head string) map[string]bool {
		_, rest, ok := strings.Cut(sec, head)
		if !ok {
			t.Fatalf("docs/modes.md's overlay section has no %q", head)
			return nil
		}
		_, rest, _ = strings.Cut(rest, "\n\n")
		out := map[string]bool{}
		for _, l := range strings.Split(rest, "\n") {
			if !strings.HasPrefix(l, "- ") {
				break
			}
			out[strings.TrimPrefix(l, "- ")] = true
		}
		return out
	}
	holds, not := list("**The seal holds**"), list("**It does not hold**")
	var suite strings.Builder
	files, _ := filepath.Glob("internal/sandbox/sandboxtest/*.go")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		suite.Write(b)
	}
	for _, c := range overlay.SealHolds {
		line := c.Text + " (`" + strings.Join(c.Routes, "`, `") + "`)"
		if !holds[line] {
			t.Errorf("docs/modes.md does not say what the seal holds: %q", line)
		}
		delete(holds, line)
		if !strings.Contains(overlay.ProtectionLine(), c.Text) {
			t.Errorf("the probe's line lacks %q", c.Text)
		}
		for _, r := range c.Routes {
			if !strings.Contains(suite.String(), `t.Run("`+r+`"`) {
				t.Errorf("claim %q names route %s, which the conformance suite does not run", c.Text, r)
			}
		}
	}
	for l := range holds {
		t.Errorf("docs/modes.md says the seal holds %q, which overlay.SealHolds does not", l)
	}
	for _, n := range overlay.SealDoesNot {
		if !not[n] {
			t.Errorf("docs/modes.md does not say the seal does not hold %q", n)
		}
		delete(not, n)
		if !strings.Contains(overlay.ProtectionLine(), n) {
			t.Errorf("the probe's line lacks %q", n)
		}
	}
	for l := range not {
		t.Errorf("docs/modes.md says the seal does not hold %q, which overlay.SealDoesNot does not", l)
	}
	if v := overlay.Probe(t.TempDir()); v.Mode == "overlay" && v.Protection != overlay.ProtectionLine() {
		t.Errorf("shadow probe says it protects against %q, not overlay.ProtectionLine()", v.Protection)
	}
}
