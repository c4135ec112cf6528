//go:build linux

package judge

import (
	"regexp"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// The tamper canary is shadow's test, not the user's: the demo's failure
// tails (text report and JSON) name only the demo's own tests, although
// the canary ran and failed in every hypothesis.
func TestE2EDemoTailsNeverShowTheCanary(t *testing.T) {
	e := e2e.NewEnv(t)
	own := map[string]bool{"TestAdd": true, "TestAddNegative": true, "TestAddZero": true, "TestSub": true}
	named := regexp.MustCompile(`(?m)(?:--- FAIL: |--- PASS: |=== RUN\s+)(\w+)`)
	check := func(what, s string) {
		for _, m := range named.FindAllStringSubmatch(s, -1) {
			if !own[m[1]] {
				t.Errorf("%s names %s, a test the demo does not have (the canary):\n%s", what, m[1], s)
				return
			}
		}
	}
	out, stderr, code := e.Shadow("demo", "--json")
	if code != 0 {
		t.Fatalf("demo --json: exit %d\n%s", code, stderr)
	}
	r := e.Report(out)
	failing := 0
	for _, h := range r.Hypotheses {
		check(h.Name+"'s output_tail", h.OutputTail)
		if h.Status != "passed" {
			failing++
			if !strings.Contains(h.OutputTail, "--- FAIL: Test") {
				t.Errorf("%s failed, but its tail lost its own failure:\n%s", h.Name, h.OutputTail)
			}
		}
	}
	if failing == 0 {
		t.Fatal("the demo has failing hypotheses")
	}
	text, _, _ := e.Shadow("demo", "--headless")
	check("the text report", text)
}
