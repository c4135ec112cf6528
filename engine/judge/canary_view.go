package judge

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// What a person or an agent reads of a run never shows the tamper canary
// (canary.go): it is shadow's test, not the checkout's, and a passing fix
// drawn with "1 failed" sends its reader after a test that does not exist
// (docs/report.md, "The tamper canary"). The test parser reads the
// command's output as printed, canary included (canary_observe.go judges by
// it); the output log, the tail, the live output events and everything
// built on them (show, the TUI's full-output view, MCP) read it through a
// CanaryView, which drops the canary's own lines and sections and rewrites
// the runner's summary lines so they agree with the counts shadow reports.

// CanaryView filters one run's output, line by line.
type CanaryView struct {
	runner  string
	key     string // the part of the token every canary name holds verbatim
	partial []byte
	skip    bool     // inside a canary's section
	held    []string // headers that open a section: shown when it holds more than the canary
	rule    string   // unittest's dash rule seen while skipping
	fails   int      // canary failures seen
	seen    map[string]bool

	// go test: the package whose output is streaming, and each package's
	// state in -json mode (events are per package).
	goPkg    goViewPkg
	goPkgs   map[string]*goViewPkg
	goRealPk int // packages that failed for more than the canary
	goCanPk  int // packages whose only failure was the canary

	// vitest and jest: files whose only failure was the canary.
	canaryFiles int
	dotGone     bool // pytest -q's or unittest's progress has lost the canary's F
	dropTree    bool // a vitest file line was rewritten to passed: its list is not shown
	sepShown    int  // vitest's "[i/N]" failure separators shown
	sepFails    int  // vitest's "Failed Tests N" less the canary's
	jestBuf     []string
	jestReal    int
	jestCanary  int

	// cargo: a test binary's section ("running N tests" to "test
	// result:"), held until its result says whether the canary ran in it.
	cargoBuf      []string
	cargoCanary   int
	cargoDropNext bool // the section's only failure was the canary: its "error: test failed" line goes
}

type goViewPkg struct {
	canary, real, verbose bool
}

// view returns the run's output filter, or nil without a canary.
func (p *canaryPlan) view() *CanaryView {
	if p == nil {
		return nil
	}
	return &CanaryView{runner: p.runner, key: p.token[1:], seen: map[string]bool{}, goPkgs: map[string]*goViewPkg{}}
}

// write takes raw output and returns the complete lines that are shown.
func (v *CanaryView) Write(b []byte) []byte {
	if v == nil {
		return b
	}
	var out []byte
	for len(b) > 0 {
		i := indexByte(b, '\n')
		if i < 0 {
			v.partial = append(v.partial, b...)
			if len(v.partial) > partialCap { // a line that never ends: shown as it comes
				out = append(out, v.partial...)
				v.partial = v.partial[:0]
			}
			break
		}
		line := string(append(v.partial, b[:i]...))
		v.partial = v.partial[:0]
		b = b[i+1:]
		for _, l := range v.line(line) {
			out = append(append(out, l...), '\n')
		}
	}
	return out
}

// flush ends the output: a last line without a newline, held lines.
func (v *CanaryView) Flush() []byte {
	if v == nil {
		return nil
	}
	var out []byte
	if len(v.partial) > 0 {
		ls := v.line(string(v.partial))
		v.partial = v.partial[:0]
		for i, l := range ls {
			out = append(out, l...)
			if i < len(ls)-1 {
				out = append(out, '\n')
			}
		}
	}
	for _, l := range append(v.jestFlush(false), v.cargoFlush()...) {
		out = append(append(out, l...), '\n')
	}
	return out
}

var (
	// canaryViewBoundary: where a canary's section ends (canaryBoundary,
	// plus vitest's tree symbols, jest's suite summary and cargo's next
	// test binary).
	canaryViewBoundary = regexp.MustCompile(`^\s*(_{3,}|={3,}|⎯{3,}|●|--- (FAIL|PASS|SKIP)|=== RUN|FAIL\b|FAILED\b|ERROR\b|ok\s|PASS\b|Ran \d|Test Files|Tests:|Test Suites:|×|✓|↓|❯|✕|○|Running |Doc-tests |error: \d+ targets? failed|\{"Time"|\{"Action")`)
	// Headers that open a section of failures: held until the section
	// shows something of the checkout's own.
	canaryViewHeader = regexp.MustCompile(`^(=+ (FAILURES|ERRORS|short test summary info) =+|={40,}|⎯+ Failed Tests \d+ ⎯+)$`)
	progressDots     = regexp.MustCompile(`^[.FEsxXu]+(\s+\[\s*\d+%\])?$`)
	codeFrame        = regexp.MustCompile(`^\s*>?\s*\d+\s?\|`)
	dashRule         = regexp.MustCompile(`^-{40,}$`)
	vitestWhere      = regexp.MustCompile(`^\s*❯ \S+:\d+(:\d+)?$`)
	vitestSep        = regexp.MustCompile(`^(⎯+)\[(\d+)/(\d+)\](⎯+)$`)
)

// line returns what is shown for one line of output.
func (v *CanaryView) line(raw string) []string {
	s := strings.TrimRight(stripANSI(raw), "\r")
	switch v.runner {
	case "jest":
		return v.jest(raw, s)
	case "cargo":
		return v.cargo(raw, s)
	}
	return v.common(raw, s)
}

var (
	cargoRunning    = regexp.MustCompile(`^running (\d+) tests?$`)
	cargoResult     = regexp.MustCompile(`^test result: (FAILED|ok)\. (\d+) passed; (\d+) failed;(.*)$`)
	cargoTestFailed = regexp.MustCompile(`^test \S+ \.\.\. FAILED$`)
)

// cargo holds each test binary's section until its "test result:" line:
// the canary's lines go, the counts lose it, and a section that held
// nothing but the canary (its own integration test) goes whole.
func (v *CanaryView) cargo(raw, s string) []string {
	if m := cargoRunning.FindStringSubmatch(s); m != nil {
		out := v.cargoFlush()
		v.cargoBuf = []string{raw}
		v.cargoCanary = 0
		return out
	}
	if v.cargoBuf == nil {
		if v.cargoDropNext && strings.HasPrefix(s, "error: test failed, to rerun pass") {
			v.cargoDropNext = false
			return nil
		}
		return v.common(raw, s)
	}
	if strings.Contains(s, v.key) && cargoTestFailed.MatchString(s) {
		v.cargoCanary = 1
		v.fails = 1
	}
	if m := cargoResult.FindStringSubmatch(s); m != nil {
		v.skip = false
		v.held = nil
		b := v.cargoBuf
		v.cargoBuf = nil
		if v.cargoCanary == 0 {
			return append(b, raw)
		}
		passed, failed := atoiView(m[2]), atoiView(m[3])-1
		if passed == 0 && failed <= 0 {
			v.cargoDropNext = true
			return nil // the canary's own test binary
		}
		if run := cargoRunning.FindStringSubmatch(stripANSI(b[0])); run != nil {
			n := atoiView(run[1]) - 1
			b[0] = "running " + strconv.Itoa(n) + " test" + pluralS(n)
		}
		word := "FAILED"
		if failed <= 0 {
			word = "ok"
			v.cargoDropNext = true
		}
		return append(b, "test result: "+word+". "+strconv.Itoa(passed)+" passed; "+strconv.Itoa(max(failed, 0))+" failed;"+m[4])
	}
	if strings.TrimSpace(s) == "failures:" {
		if v.skip {
			v.skip = false
		}
		v.held = []string{raw}
		return nil
	}
	if len(v.held) > 0 && strings.TrimSpace(s) == "" {
		v.held = append(v.held, raw)
		return nil
	}
	if strings.HasPrefix(s, "---- ") && strings.HasSuffix(s, " ----") && !strings.Contains(s, v.key) {
		v.skip = false
	}
	if strings.Contains(s, v.key) {
		// "test NAME ... FAILED" and "    NAME" under failures: are one
		// line; its "---- NAME stdout ----" runs to the next section.
		v.skip = !strings.HasPrefix(s, "    ") && !cargoTestFailed.MatchString(s)
		return nil
	}
	if v.skip {
		return nil
	}
	out := append(v.held, raw)
	v.held = nil
	if len(v.cargoBuf) > 8192 { // bounded: shown as it came
		out = append(v.cargoBuf, out...)
		v.cargoBuf = []string{}
		return out
	}
	v.cargoBuf = append(v.cargoBuf, out...)
	return nil
}

func (v *CanaryView) cargoFlush() []string {
	b := v.cargoBuf
	v.cargoBuf = nil
	return b
}

func (v *CanaryView) common(raw, s string) []string {
	if v.runner == "go" && (strings.HasPrefix(s, `{"Time":`) || strings.HasPrefix(s, `{"Action":`)) {
		return v.goJSON(raw, s)
	}
	if strings.Contains(s, v.key) {
		if codeFrame.MatchString(s) && !v.skip {
			return nil // the canary's source quoted in a real failure's code frame
		}
		v.canaryLine(s)
		v.skip = true
		return nil
	}
	if v.skip {
		if dashRule.MatchString(s) {
			v.rule = raw
			return nil
		}
		if m := vitestSep.FindStringSubmatch(s); m != nil {
			v.skip = false
			return nil // the canary's failure section's end
		}
		if vitestWhere.MatchString(s) {
			return nil // " ❯ a.test.js:9:46": where the canary failed
		}
		if !canaryViewBoundary.MatchString(s) && !pytestFinal.MatchString(s) {
			return nil
		}
		v.skip = false
		if v.rule != "" && strings.HasPrefix(strings.TrimSpace(s), "Ran ") {
			v.held = append(v.held, v.rule)
		}
		v.rule = ""
	}
	if (v.runner == "pytest" || v.runner == "unittest") && !v.dotGone && progressDots.MatchString(s) && strings.Contains(s, "F") {
		// pytest -q and unittest print one character a test, nameless:
		// any one F is the canary's as much as another.
		v.dotGone = true
		raw = strings.Replace(s, "F", "", 1)
		if strings.TrimSpace(strings.Split(raw, "[")[0]) == "" {
			return nil
		}
	}
	if v.dropTree {
		if strings.HasPrefix(s, "   ") && strings.TrimSpace(s) != "" {
			return nil
		}
		v.dropTree = false
	}
	if canaryViewHeader.MatchString(s) {
		if m := regexp.MustCompile(`Failed Tests (\d+)`).FindStringSubmatch(s); m != nil {
			n := atoiView(m[1]) - v.fails
			v.sepFails = n
			if n <= 0 {
				return nil
			}
			raw = strings.Replace(s, "Failed Tests "+m[1], "Failed Tests "+strconv.Itoa(n), 1)
		}
		v.held = []string{raw}
		return nil
	}
	out, shown := v.rewrite(raw, s)
	if !shown {
		return nil
	}
	if len(v.held) > 0 {
		if isRuler(s) {
			v.held = nil // the section held nothing but the canary
		} else {
			out = append(v.held, out...)
			v.held = nil
		}
	}
	return out
}

// isRuler: a line that ends a held section without being part of it.
func isRuler(s string) bool {
	return strings.HasPrefix(s, "==") || pytestFinal.MatchString(s) || strings.HasPrefix(s, "⎯") || strings.HasPrefix(strings.TrimSpace(s), "Test Files") ||
		strings.HasPrefix(strings.TrimSpace(s), "Ran ")
}

// canaryLine notes a line naming the canary that reports it failing.
// pytest, unittest and cargo run one canary; go test's are counted per
// package (goPlain, goJSON), vitest's per file line (each test file holds
// one) and jest's per file section.
func (v *CanaryView) canaryLine(s string) {
	if !(strings.Contains(s, "FAIL") || strings.Contains(s, "✕") || strings.Contains(s, "×") || strings.Contains(s, "●")) {
		return
	}
	switch v.runner {
	case "go":
		v.goPkg.canary = true
	case "pytest", "unittest", "cargo":
		v.fails = 1
	}
}

var (
	pytestCounts   = regexp.MustCompile(`\b(\d+) (failed|passed|error|errors)\b`)
	pytestFinal    = regexp.MustCompile(`^=*\s*\d+ (failed|passed|error|errors|skipped|deselected|xfailed|xpassed|warnings?)\b.* in [\d.]+s`)
	pytestCollect  = regexp.MustCompile(`\bcollected (\d+) items?`)
	unittestRan    = regexp.MustCompile(`^Ran (\d+) tests?`)
	unittestFailed = regexp.MustCompile(`^FAILED \((.*)\)$`)
	goPkgLine      = regexp.MustCompile(`^FAIL\t(\S+)\t(.*)$`)
	vitestFileLine = regexp.MustCompile(`^(\s*)❯ (\S+) \((\d+) tests? \| (\d+) failed((?: \| [^)]*)?)\)(.*)$`)
	vitestSummary  = regexp.MustCompile(`^(\s*)(Test Files|Tests)  (.*) \((\d+)\)(.*)$`)
	cargoTargets   = regexp.MustCompile(`^error: (\d+) targets? failed:$`)
)

// rewrite returns a line of the checkout's output as shown: summary lines
// with the canary's failures taken off.
func (v *CanaryView) rewrite(raw, s string) ([]string, bool) {
	if v.fails == 0 && v.runner != "go" && v.runner != "vitest" {
		if m := pytestCollect.FindStringSubmatch(s); m != nil && (v.runner == "pytest" || v.runner == "unittest") {
			// pytest collects the canary before anything runs.
			n := atoiView(m[1]) - 1
			return []string{strings.Replace(s, m[0], "collected "+strconv.Itoa(n)+" item"+pluralS(n), 1)}, true
		}
		return []string{raw}, true
	}
	switch v.runner {
	case "pytest", "unittest":
		if m := pytestCollect.FindStringSubmatch(s); m != nil {
			n := atoiView(m[1]) - 1
			return []string{strings.Replace(s, m[0], "collected "+strconv.Itoa(n)+" item"+pluralS(n), 1)}, true
		}
		if pytestFinal.MatchString(s) && strings.Contains(s, " failed") {
			return []string{pytestSummary(s, v.fails)}, true
		}
		if m := unittestRan.FindStringSubmatch(s); m != nil {
			n := atoiView(m[1]) - v.fails
			return []string{strings.Replace(s, m[0], "Ran "+strconv.Itoa(n)+" test"+pluralS(n), 1)}, true
		}
		if m := unittestFailed.FindStringSubmatch(s); m != nil {
			return []string{unittestSummary(m[1], v.fails)}, true
		}
	case "go":
		return v.goPlain(raw, s)
	case "vitest":
		if m := vitestFileLine.FindStringSubmatch(s); m != nil {
			v.fails++ // the file's canary
			total, failed := atoiView(m[3])-1, atoiView(m[4])-1
			if failed <= 0 {
				v.canaryFiles++
				v.dropTree = true
				return []string{m[1] + "✓ " + m[2] + " (" + strconv.Itoa(total) + " test" + pluralS(total) + strings.TrimSpace(m[5]) + ")" + m[6]}, true
			}
			return []string{m[1] + "❯ " + m[2] + " (" + strconv.Itoa(total) + " test" + pluralS(total) + " | " + strconv.Itoa(failed) + " failed" + m[5] + ")" + m[6]}, true
		}
		if m := vitestSep.FindStringSubmatch(s); m != nil {
			v.sepShown++
			return []string{m[1] + "[" + strconv.Itoa(v.sepShown) + "/" + strconv.Itoa(max(v.sepFails, v.sepShown)) + "]" + m[4]}, true
		}
		if m := vitestSummary.FindStringSubmatch(s); m != nil {
			less := v.fails
			if m[2] == "Test Files" {
				less = v.canaryFiles
			}
			return []string{m[1] + m[2] + "  " + jsCounts(m[3], " | ", less, m[2] == "Test Files", atoiView(m[4])-boolInt(m[2] == "Tests")*v.fails, "(%d)") + m[5]}, true
		}
	case "cargo":
		// --no-fail-fast: "error: 2 targets failed:", one a line.
		if m := cargoTargets.FindStringSubmatch(s); m != nil {
			n := atoiView(m[1]) - v.fails
			if n <= 0 {
				return nil, false
			}
			return []string{"error: " + strconv.Itoa(n) + " target" + pluralS(n) + " failed:"}, true
		}
	}
	return []string{raw}, true
}

// pytestSummary takes n failures off pytest's last line
// ("==== 1 failed, 5 passed in 0.12s ====").
func pytestSummary(s string, n int) string {
	body := strings.Trim(s, "= ")
	counts, rest, _ := strings.Cut(body, " in ")
	var parts []string
	for _, part := range strings.Split(counts, ", ") {
		if k, w, ok := strings.Cut(part, " "); ok && w == "failed" {
			if left := atoiView(k) - n; left > 0 {
				parts = append(parts, strconv.Itoa(left)+" failed")
			}
			continue
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		parts = []string{"no tests ran"}
	}
	line := " " + strings.Join(parts, ", ") + " in " + rest + " "
	if !strings.HasPrefix(s, "=") {
		return strings.TrimSpace(line)
	}
	pad := max(0, len(s)-len(line))
	return strings.Repeat("=", pad/2) + line + strings.Repeat("=", pad-pad/2)
}

// unittestSummary takes n failures off "FAILED (failures=2, errors=1)".
func unittestSummary(inner string, n int) string {
	var parts []string
	bad := false
	for _, part := range strings.Split(inner, ", ") {
		k, val, _ := strings.Cut(part, "=")
		c := atoiView(val)
		if k == "failures" {
			c -= n
			if c <= 0 {
				continue
			}
			part = k + "=" + strconv.Itoa(c)
		}
		if k == "failures" || k == "errors" || k == "unexpected successes" {
			bad = true
		}
		parts = append(parts, part)
	}
	word := "OK"
	if bad {
		word = "FAILED"
	}
	if len(parts) == 0 {
		return word
	}
	return word + " (" + strings.Join(parts, ", ") + ")"
}

// jsCounts takes less failures off a "1 failed | 4 passed" list (files
// also move to passed) and writes the total.
func jsCounts(list, sep string, less int, toPassed bool, total int, totalFmt string) string {
	var parts []string
	added := false
	for _, part := range strings.Split(list, sep) {
		k, w, ok := strings.Cut(strings.TrimSpace(part), " ")
		if !ok {
			parts = append(parts, part)
			continue
		}
		c := atoiView(k)
		switch w {
		case "failed":
			c -= less
			if c <= 0 {
				continue
			}
		case "passed":
			if toPassed {
				c += less
				added = true
			}
		}
		parts = append(parts, strconv.Itoa(c)+" "+w)
	}
	if toPassed && !added && less > 0 {
		parts = append(parts, strconv.Itoa(less)+" passed")
	}
	out := strings.Join(parts, sep)
	if totalFmt != "" {
		out += " " + strings.Replace(totalFmt, "%d", strconv.Itoa(total), 1)
	}
	return out
}

// goPlain follows plain and -v go test output: a package whose only
// failure was the canary is shown as passing.
func (v *CanaryView) goPlain(raw, s string) ([]string, bool) {
	p := &v.goPkg
	switch {
	case strings.HasPrefix(s, "=== RUN"):
		p.verbose = true
	case strings.HasPrefix(strings.TrimSpace(s), "--- FAIL:") || strings.HasPrefix(s, "panic:") || strings.HasPrefix(s, "FAIL\t") && !p.canary:
		p.real = true
	}
	if s == "FAIL" {
		switch {
		case p.canary && !p.real:
			if p.verbose {
				return []string{"PASS"}, true
			}
			return nil, false
		case !p.canary && !p.real && v.goRealPk == 0 && v.goCanPk > 0:
			return nil, false // go test's last line: every failure was the canary's
		}
		return []string{raw}, true
	}
	if m := goPkgLine.FindStringSubmatch(s); m != nil {
		canaryOnly := p.canary && !p.real
		v.goPkg = goViewPkg{}
		if canaryOnly {
			v.goCanPk++
			return []string{"ok  \t" + m[1] + "\t" + m[2]}, true
		}
		v.goRealPk++
		return []string{raw}, true
	}
	if strings.HasPrefix(s, "ok  \t") {
		v.goPkg = goViewPkg{}
	}
	return []string{raw}, true
}

// goJSON follows go test -json (test2json) events: the canary's are
// dropped, and a package that failed for the canary alone passes.
func (v *CanaryView) goJSON(raw, s string) []string {
	var ev map[string]any
	if json.Unmarshal([]byte(s), &ev) != nil {
		return []string{raw}
	}
	pkg, _ := ev["Package"].(string)
	st := v.goPkgs[pkg]
	if st == nil {
		st = &goViewPkg{}
		v.goPkgs[pkg] = st
	}
	action, _ := ev["Action"].(string)
	test, _ := ev["Test"].(string)
	out, _ := ev["Output"].(string)
	if strings.Contains(test, v.key) || strings.Contains(out, v.key) {
		if action == "fail" && !v.seen[pkg+"."+test] {
			v.seen[pkg+"."+test] = true
			v.fails++
			st.canary = true
		}
		if test == "" {
			st.canary = true
		}
		return nil
	}
	if test != "" {
		if action == "fail" {
			st.real = true
		}
		if strings.HasPrefix(strings.TrimSpace(out), "--- FAIL:") && !strings.Contains(out, v.key) {
			st.real = true
		}
		return []string{raw}
	}
	if !st.canary || st.real {
		return []string{raw}
	}
	line := raw
	quote := func(x string) string { b, _ := json.Marshal(x); return string(b) }
	switch {
	case action == "fail":
		line = strings.Replace(raw, `"Action":"fail"`, `"Action":"pass"`, 1)
	case action == "output" && out == "FAIL\n":
		line = strings.Replace(raw, quote(out), quote("PASS\n"), 1)
	case action == "output" && strings.HasPrefix(out, "FAIL\t"+pkg+"\t"):
		line = strings.Replace(raw, quote(out), quote("ok  \t"+strings.TrimPrefix(out, "FAIL\t")), 1)
	}
	return []string{line}
}

// jest buffers a file's section ("FAIL ./a.test.js" and the failures
// under it) until the next file or the summary: a file whose only
// failure was the canary is shown under PASS.
func (v *CanaryView) jest(raw, s string) []string {
	t := strings.TrimSpace(s)
	top := strings.HasPrefix(s, "PASS ") || strings.HasPrefix(s, "FAIL ") || strings.HasPrefix(t, "Test Suites:") || strings.HasPrefix(t, "Tests:")
	var out []string
	if top {
		out = v.jestFlush(true)
	}
	if strings.HasPrefix(s, "FAIL ") {
		v.jestBuf = []string{raw}
		v.jestReal, v.jestCanary = 0, 0
		return out
	}
	if strings.HasPrefix(t, "Test Suites:") {
		return append(out, jestSummary(s, "Test Suites:", v.canaryFiles, true))
	}
	if strings.HasPrefix(t, "Tests:") {
		return append(out, jestSummary(s, "Tests:", v.fails, false))
	}
	if strings.HasPrefix(t, "● ") {
		if strings.Contains(s, v.key) {
			if v.jestCanary == 0 {
				v.fails++ // the file's canary
			}
			v.jestCanary++
			v.skip = true
			return out
		}
		v.jestReal++
		v.skip = false
	}
	if strings.HasPrefix(t, "✕ ") && !strings.Contains(s, v.key) {
		v.jestReal++
	}
	var shown []string
	switch {
	case strings.Contains(s, v.key):
	case v.skip && !top:
	default:
		v.skip = false
		shown = []string{raw}
	}
	if v.jestBuf != nil {
		v.jestBuf = append(v.jestBuf, shown...)
		if len(v.jestBuf) > 4096 { // bounded: shown as it came
			out = append(out, v.jestBuf...)
			v.jestBuf = []string{}
		}
		return out
	}
	return append(out, shown...)
}

func (v *CanaryView) jestFlush(top bool) []string {
	if v.jestBuf == nil {
		return nil
	}
	b := v.jestBuf
	v.jestBuf = nil
	v.skip = false
	if len(b) > 0 && v.jestCanary > 0 && v.jestReal == 0 && strings.HasPrefix(stripANSI(b[0]), "FAIL ") {
		v.canaryFiles++
		head := "PASS " + strings.TrimPrefix(stripANSI(b[0]), "FAIL ")
		return append([]string{head}, b[1:]...)
	}
	return b
}

// jestSummary takes n failures off "Tests:       3 failed, 1 passed, 4
// total" (suites move to passed; tests leave the total).
func jestSummary(s, label string, n int, toPassed bool) string {
	i := strings.Index(s, label)
	rest := s[i+len(label):]
	pad := rest[:len(rest)-len(strings.TrimLeft(rest, " "))]
	list := strings.TrimSpace(rest)
	parts := strings.Split(list, ", ")
	total := 0
	if len(parts) > 0 {
		if k, w, ok := strings.Cut(parts[len(parts)-1], " "); ok && w == "total" {
			total = atoiView(k)
			parts = parts[:len(parts)-1]
		}
	}
	if !toPassed {
		total -= n
	}
	counts := jsCounts(strings.Join(parts, ", "), ", ", n, toPassed, 0, "")
	if counts != "" {
		counts += ", "
	}
	return s[:i] + label + pad + counts + strconv.Itoa(total) + " total"
}

func atoiView(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
