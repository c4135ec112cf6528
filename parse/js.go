package parse

import (
	"regexp"
	"strings"
)

// JavaScript runners. Each gates its per-test lines on its own header (vitest's
// "RUN  v3.2.7", jest's "PASS/FAIL file", bun's "bun test v1.x") because they
// share symbols (✓) with each other; summary lines are distinctive enough to
// be read anywhere.

// vitest: per-file lines "✓ a.test.js (2 tests) 3ms" / "❯ b.test.js (3 tests
// | 1 failed | 1 skipped)" and, with --reporter=verbose or under a failed file,
// per-test lines "× b > subtracts 7ms" (vitest 3) or a tree of them, each
// describe block a line "✓ b (2)" above its tests indented one level deeper
// (vitest 4 and later). The summary "Tests  1 failed | 3 passed | 1 skipped
// (5)" wins. todo counts as skipped. Names are vitest's full names "file >
// describe > test" ("vt/b.test.js > b > subtracts") whichever form the
// runner printed: the judge compares a run's names with the baseline's, and
// a file that lists its tests in one run (it has a failure) and only counts
// them in another must give the same names.
type vitest struct {
	t       tally
	on      bool
	file    string
	counted map[string]bool // files whose per-file line already counted their tests
	groups  []vitestGroup   // the describe blocks enclosing the next tree line
}

// vitestGroup is a describe block of vitest's tree: its line's indentation,
// its name, and whether a line was nested in it (one that was not is a test
// whose title ends in "(N)").
type vitestGroup struct {
	indent int
	name   string
	title  string // the whole line: a test's title if nothing is nested
	o      int
	nested bool
}

func newVitest() *vitest { return &vitest{counted: map[string]bool{}} }

func (v *vitest) framework() string { return "vitest" }
func (v *vitest) recognised() bool  { return v.t.seen }
func (v *vitest) live() counts      { return v.t.live() }
func (v *vitest) final() *Summary   { return v.t.summary("vitest") }

var (
	vitestRun       = regexp.MustCompile(`^RUN  v\d`)
	vitestTests     = regexp.MustCompile(`^Tests  (.*) \((\d+)\)$`)
	vitestFile      = regexp.MustCompile(`^(\S+) \((\d+) tests?((?: \| \d+ \w+)*)\)`)
	vitestGroupLine = regexp.MustCompile(`^(.+) \(\d+\)$`)
	jsDuration      = regexp.MustCompile(`\s+(?:\d+(?:\.\d+)?\s?m?s|\[\d+(?:\.\d+)?m?s\]|\(\d+(?:\.\d+)?\s?m?s\))$`)
	jsTestFile      = regexp.MustCompile(`\.(?:[cm]?[jt]sx?)$`)
)

func (v *vitest) line(s string) {
	trim := strings.TrimSpace(s)
	if trim == "" {
		return
	}
	if strings.HasPrefix(trim, "RUN ") && vitestRun.MatchString(trim) {
		v.on = true
		v.t.closeLive()
		v.counted = map[string]bool{}
		v.groups = nil
		return
	}
	if !strings.HasPrefix(trim, "Tests ") {
		// not the summary
	} else if m := vitestTests.FindStringSubmatch(trim); m != nil {
		c, ok := jsTally(m[1], " | ")
		if !ok {
			return
		}
		v.t.closeWith(c)
		return
	}
	if !v.on {
		return
	}
	if rest, ok := strings.CutPrefix(trim, "FAIL  "); ok {
		if i := strings.Index(rest, " [ "); i >= 0 && !strings.Contains(rest[:i], " > ") { // a file that failed to load
			v.t.brokenFile(rest[:i])
		} else if strings.Contains(rest, " > ") {
			v.t.fail.add(rest)
		}
		return
	}
	sym, rest, ok := strings.Cut(trim, " ")
	if !ok {
		return
	}
	var o int
	switch sym {
	case "✓":
		o = pass
	case "×", "✗":
		o = fail
	case "↓":
		o = skip
	case "❯":
		o = -1 // only a file line
	default:
		return
	}
	indent := len(s) - len(strings.TrimLeft(s, " "))
	if m := vitestFile.FindStringSubmatch(rest); m != nil {
		v.popGroups(-1)
		total := atoi(m[2])
		var c counts
		for _, part := range strings.Split(m[3], " | ") {
			n, w, ok := numWord(part)
			if !ok {
				continue
			}
			switch w {
			case "failed":
				c.failed += n
			case "skipped", "todo":
				c.skipped += n
			}
		}
		c.passed = max(total-c.failed-c.skipped, 0)
		v.file = m[1]
		if !v.counted[m[1]] {
			v.counted[m[1]] = true
			v.t.cur.add(c)
		}
		v.t.seen = true
		return
	}
	name := jsDuration.ReplaceAllString(rest, "")
	timed := name != rest
	first, _, _ := strings.Cut(name, " > ")
	if jsTestFile.MatchString(first) { // verbose: the full name
		if o >= 0 {
			v.t.outcome(name, o, !v.counted[first])
		}
		return
	}
	v.popGroups(indent)
	if !timed && v.file != "" { // "❯ b (3)": a block holding a failure
		if m := vitestGroupLine.FindStringSubmatch(name); m != nil {
			// A describe block of the tree (no duration, a count):
			// its tests follow, one level deeper.
			if n := len(v.groups); n > 0 {
				v.groups[n-1].nested = true
			}
			v.groups = append(v.groups, vitestGroup{indent: indent, name: m[1], title: name, o: o})
			return
		}
	}
	if o < 0 {
		return
	}
	if n := len(v.groups); n > 0 {
		v.groups[n-1].nested = true
	}
	v.record(name, o)
}

// record names a tree line's test by its file and enclosing describe blocks.
func (v *vitest) record(title string, o int) {
	name := title
	for i := len(v.groups) - 1; i >= 0; i-- {
		name = v.groups[i].name + " > " + name
	}
	if v.file != "" {
		name = v.file + " > " + name
	}
	v.t.outcome(name, o, !v.counted[v.file])
}

// popGroups closes the describe blocks a line at indent is not nested in
// (every one for indent < 0). A "group" nothing was nested in was a test
// whose title ends in "(N)" and that printed no duration (a skipped one).
func (v *vitest) popGroups(indent int) {
	for n := len(v.groups); n > 0 && (indent < 0 || v.groups[n-1].indent >= indent); n = len(v.groups) {
		g := v.groups[n-1]
		v.groups = v.groups[:n-1]
		if !g.nested && g.o >= 0 {
			v.record(g.title, g.o)
		}
	}
}

// jest: "PASS/FAIL file" headers; with --verbose (or a single test file) a
// tree of "✓ title (2 ms)", "✕ title", "○ skipped title", "✎ todo title"
// under indented describe names; "● describe › title" heads each failure. The
// summary "Tests:  1 failed, 1 skipped, 3 passed, 5 total" wins; todo counts
// as skipped. Names are "file › describe › title", the form jest prints in
// its "●" lines, prefixed by the file.
type jest struct {
	t     tally
	file  string
	tree  bool
	stack []jestLevel
}

type jestLevel struct {
	indent int
	name   string
}

func newJest() *jest { return &jest{} }

func (j *jest) framework() string { return "jest" }
func (j *jest) recognised() bool  { return j.t.seen }
func (j *jest) live() counts      { return j.t.live() }
func (j *jest) final() *Summary   { return j.t.summary("jest") }

var (
	jestHeader = regexp.MustCompile(`^(?:PASS|FAIL) +([^\s>]+\.\w+)(?: \(\d+(?:\.\d+)? ?m?s\))?$`)
	jestTests  = regexp.MustCompile(`^Tests: +(?:(.*), )?(\d+) total$`)
)

func (j *jest) line(s string) {
	trim := strings.TrimSpace(s)
	if trim == "" {
		j.tree = false
		return
	}
	if strings.HasPrefix(trim, "Tests:") {
		if m := jestTests.FindStringSubmatch(trim); m != nil {
			c, ok := jsTally(m[1], ", ")
			if !ok {
				return
			}
			j.t.closeWith(c)
			j.tree = false
		}
		return
	}
	if !strings.Contains(s, "\t") {
		if !strings.HasPrefix(trim, "PASS ") && !strings.HasPrefix(trim, "FAIL ") {
			// not a file header
		} else if m := jestHeader.FindStringSubmatch(trim); m != nil {
			j.file, j.tree, j.stack = m[1], true, j.stack[:0]
			return
		}
	}
	if j.file == "" {
		return
	}
	if rest, ok := strings.CutPrefix(trim, "● "); ok {
		j.tree = false
		switch {
		case rest == "Console" || strings.HasPrefix(rest, "Console "):
		case rest == "Test suite failed to run":
			j.t.brokenFile(j.file)
		default:
			j.t.outcome(j.file+" › "+rest, fail, false)
		}
		return
	}
	if !j.tree {
		return
	}
	in := indent(s)
	for len(j.stack) > 0 && j.stack[len(j.stack)-1].indent >= in {
		j.stack = j.stack[:len(j.stack)-1]
	}
	sym, rest, _ := strings.Cut(trim, " ")
	o := -1
	switch sym {
	case "✓", "√":
		o = pass
	case "✕", "×":
		o = fail
	case "○":
		o, rest = skip, strings.TrimPrefix(rest, "skipped ")
	case "✎":
		o, rest = skip, strings.TrimPrefix(rest, "todo ")
	}
	if o < 0 {
		j.stack = append(j.stack, jestLevel{in, trim})
		return
	}
	parts := []string{j.file}
	for _, l := range j.stack {
		parts = append(parts, l.name)
	}
	parts = append(parts, jsDuration.ReplaceAllString(rest, ""))
	j.t.outcome(strings.Join(parts, " › "), o, true)
}

// bun: "bun test v1.x" header, "file.test.ts:" file lines, per-test lines
// "(pass) describe > test [0.12ms]" (✓ ✗ » ✎ when coloured), a recap of
// failures ("1 tests failed:") that is not counted again, then " 3 pass",
// " 1 skip", " 1 todo", " 1 fail" and "Ran 5 tests across 2 files.", which
// win. todo counts as skipped. Names are "file > describe > test".
type bun struct {
	t     tally
	on    bool
	file  string
	recap bool
	sum   counts
}

func newBun() *bun { return &bun{} }

func (b *bun) framework() string { return "bun" }
func (b *bun) recognised() bool  { return b.t.seen }
func (b *bun) live() counts      { return b.t.live() }
func (b *bun) final() *Summary   { return b.t.summary("bun") }

var (
	bunHeader = regexp.MustCompile(`^bun test v\d`)
	bunRecap  = regexp.MustCompile(`^\d+ tests? (?:failed|skipped|todo):?$`)
	bunCount  = regexp.MustCompile(`^(\d+) (pass|fail|skip|todo)$`)
	bunRan    = regexp.MustCompile(`^Ran \d+ tests? across \d+ files?\.`)
)

var bunMarks = []struct {
	prefix string
	o      int
}{{"(pass) ", pass}, {"✓ ", pass}, {"(fail) ", fail}, {"✗ ", fail}, {"(skip) ", skip}, {"» ", skip}, {"(todo) ", skip}, {"✎ ", skip}}

func (b *bun) line(s string) {
	trim := strings.TrimSpace(s)
	if strings.HasPrefix(trim, "bun test v") && bunHeader.MatchString(trim) {
		b.on, b.recap, b.sum = true, false, counts{}
		b.t.closeLive()
		return
	}
	if !b.on || trim == "" {
		return
	}
	if trim[0] >= '0' && trim[0] <= '9' {
		if m := bunCount.FindStringSubmatch(trim); m != nil {
			n := atoi(m[1])
			switch m[2] {
			case "pass":
				b.sum.passed += n
			case "fail":
				b.sum.failed += n
			default:
				b.sum.skipped += n
			}
			return
		}
		if bunRecap.MatchString(trim) {
			b.recap = true
			return
		}
	}
	if strings.HasPrefix(trim, "Ran ") && bunRan.MatchString(trim) {
		b.t.closeWith(b.sum)
		b.sum, b.recap = counts{}, false
		return
	}
	if strings.HasSuffix(trim, ":") && !strings.Contains(trim, " ") && jsTestFile.MatchString(trim[:len(trim)-1]) {
		b.file = trim[:len(trim)-1]
		return
	}
	var o int
	var rest string
	for _, p := range bunMarks {
		if r, ok := strings.CutPrefix(trim, p.prefix); ok {
			o, rest = p.o, r
			break
		}
	}
	if rest == "" {
		return
	}
	name := jsDuration.ReplaceAllString(rest, "")
	if b.file != "" {
		name = b.file + " > " + name
	}
	b.t.outcome(name, o, !b.recap)
}

// jsTally reads the "N word" list of a vitest or jest "Tests" summary
// ("1 failed | 3 passed", "1 failed, 3 passed, 4 total"), which name the
// outcomes alike: todo counts as skipped, totals are ignored. ok is false
// when a part is not "N word", so another tool's line is not taken for it.
func jsTally(list, sep string) (c counts, ok bool) {
	for _, part := range strings.Split(list, sep) {
		if strings.TrimSpace(part) == "" {
			continue
		}
		n, w, ok := numWord(part)
		if !ok {
			return counts{}, false
		}
		switch w {
		case "passed":
			c.passed += n
		case "failed":
			c.failed += n
		case "skipped", "todo":
			c.skipped += n
		}
	}
	return c, true
}
