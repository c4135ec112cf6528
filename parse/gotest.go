package parse

import (
	"encoding/json"
	"strings"
)

// goTest reads `go test` in its three forms:
//
//   - -json: one event per line; every pass/fail/skip event that has a Test
//     field counts, subtests included (as gotestsum counts them).
//   - -v: "--- PASS: TestX (0.00s)" lines, subtests indented; each counts,
//     the same tests -json would count.
//   - plain: only failing tests print "--- FAIL:" lines, passing packages
//     print "ok  pkg". Passing tests are not knowable, so the counts are of
//     packages (Unit "package"): ok packages passed, FAIL packages failed,
//     "[no test files]" and "[no tests to run]" packages skipped (a
//     package that ran no test did not pass); the failing tests are still
//     named. A run is plain when it shows no "=== RUN", "--- PASS",
//     "--- SKIP" line and no -json event.
//
// Names are "importpath.TestName/subtest" (e.g. "example.com/calc.TestSub/neg").
// Text output names the package only after its tests (the "ok"/"FAIL pkg"
// line), so names wait for that line; a run cut before it keeps bare names.
//
// A package that fails with no failing test (build failure, panic outside a
// test, TestMain exiting non-zero) counts as one failed test named by its
// import path: otherwise a hypothesis that breaks the build would rank above
// one that fails a single test.
type goTest struct {
	t       tally
	pending []goPending    // text-mode outcomes waiting for their package line
	jsonBad map[string]int // -json: failed tests per package
	verbose bool           // -v or -json: every test is reported
	pkgs    counts         // package lines: ok, FAIL, no test files
}

type goPending struct {
	name string
	o    int
}

func newGoTest() *goTest { return &goTest{jsonBad: map[string]int{}} }

func (g *goTest) framework() string { return "go" }
func (g *goTest) recognised() bool  { return g.t.seen }
func (g *goTest) live() counts {
	if !g.verbose {
		return g.pkgs
	}
	return g.t.live()
}

// plain reports whether the output is plain `go test` (package lines, and
// test lines only for failures).
func (g *goTest) plain() bool { return !g.verbose && g.pkgs != (counts{}) }

type goEvent struct {
	Action  string
	Package string
	Test    string
}

func (g *goTest) line(s string) {
	if strings.HasPrefix(s, "{") {
		g.jsonLine(s)
		return
	}
	trim := strings.TrimLeft(s, " \t")
	if strings.HasPrefix(trim, "=== RUN ") || strings.HasPrefix(trim, "--- PASS: ") || strings.HasPrefix(trim, "--- SKIP: ") {
		g.verbose = true
	}
	if strings.HasPrefix(trim, "--- ") {
		var o int
		switch {
		case strings.HasPrefix(trim, "--- PASS: "):
			o = pass
		case strings.HasPrefix(trim, "--- FAIL: "):
			o = fail
		case strings.HasPrefix(trim, "--- SKIP: "):
			o = skip
		default:
			return
		}
		rest := trim[len("--- PASS: "):]
		// Go replaces spaces in subtest names, so the name is the first field.
		name, _, _ := strings.Cut(rest, " ")
		if name == "" {
			return
		}
		g.t.outcome("", o, true)
		g.pending = append(g.pending, goPending{name, o})
		return
	}
	// Package result lines: "ok  \tpkg\t0.01s", "FAIL\tpkg\t0.01s",
	// "FAIL\tpkg [build failed]", "?   \tpkg\t[no test files]".
	var ok bool
	var rest string
	switch {
	case strings.HasPrefix(s, "ok  \t"):
		ok, rest = true, s[5:]
	case strings.HasPrefix(s, "FAIL\t"):
		rest = s[5:]
	case strings.HasPrefix(s, "?   \t"):
		g.t.seen = true
		g.pkgs.skipped++
		return
	default:
		return
	}
	pkg := strings.FieldsFunc(rest, func(r rune) bool { return r == '\t' || r == ' ' })
	if len(pkg) == 0 {
		return
	}
	g.t.seen = true
	switch {
	case ok && strings.HasSuffix(strings.TrimSpace(rest), "[no tests to run]"):
		// go test -run matched nothing in it: the package ran no test,
		// which is no pass (a candidate that renames the failing test
		// must not turn its package's FAIL into ok).
		g.pkgs.skipped++
	case ok:
		g.pkgs.passed++
	default:
		g.pkgs.failed++
	}
	failedHere := false
	for _, p := range g.pending {
		full := pkg[0] + "." + p.name
		switch p.o {
		case pass:
			g.t.pass.add(full)
		case fail:
			g.t.fail.add(full)
			failedHere = true
		}
	}
	g.pending = g.pending[:0]
	if !ok && !failedHere {
		g.t.outcome(pkg[0], fail, true)
	}
}

func (g *goTest) jsonLine(s string) {
	// Cheap filter first: only result events matter, and most lines are
	// "output" events. An Output text that quotes an event is escaped (\"), so
	// it cannot contain these substrings.
	if !strings.Contains(s, `"Action":"pass"`) && !strings.Contains(s, `"Action":"fail"`) &&
		!strings.Contains(s, `"Action":"skip"`) {
		return
	}
	var e goEvent
	if json.Unmarshal([]byte(s), &e) != nil || e.Package == "" {
		return
	}
	g.verbose = true
	if e.Test == "" {
		g.t.seen = true
		if e.Action == "fail" && g.jsonBad[e.Package] == 0 {
			g.t.outcome(e.Package, fail, true)
		}
		return
	}
	full := e.Package + "." + e.Test
	switch e.Action {
	case "pass":
		g.t.outcome(full, pass, true)
	case "fail":
		g.jsonBad[e.Package]++
		g.t.outcome(full, fail, true)
	case "skip":
		g.t.outcome(full, skip, true)
	}
}

func (g *goTest) final() *Summary {
	// Outcomes whose package line never came (a cut run) keep bare names.
	for _, p := range g.pending {
		switch p.o {
		case pass:
			g.t.pass.add(p.name)
		case fail:
			g.t.fail.add(p.name)
		}
	}
	g.pending = nil
	s := g.t.summary("go")
	if s != nil && g.plain() {
		s.Passed, s.Failed, s.Skipped, s.Unit = g.pkgs.passed, g.pkgs.failed, g.pkgs.skipped, "package"
	}
	return s
}
