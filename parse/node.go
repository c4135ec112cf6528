package parse

import (
	"regexp"
	"strings"
)

// node reads `node --test` with its TAP reporter (the default when stdout is
// not a terminal on node 20) and its spec reporter. Only leaf tests count:
// a describe()/parent test whose children reported is a suite, as node's own
// "# tests N" counts it. The summary block ("# tests", "# pass", "# fail",
// "# cancelled", "# skipped", "# todo", or the same after "ℹ") wins:
// cancelled counts as failed, todo as skipped. Names are the titles of the
// enclosing suites and the test joined with " > " ("suite > inner fails").
// The spec reporter's closing "failing tests:" recap is not counted again.
type node struct {
	t tally
	// TAP
	tap      bool
	subtests []string // "# Subtest:" titles by nesting level
	child    []bool   // a result was seen at this level since the parent's last result
	// spec
	suites []jestLevel // open "▶ suite" lines by indent
	testAt bool        // previous line was a recap's "test at file:line:col"
	recap  bool
	// summary block
	inSum bool
	sum   counts
}

func newNode() *node { return &node{} }

func (n *node) framework() string { return "node" }
func (n *node) recognised() bool  { return n.t.seen }
func (n *node) live() counts      { return n.t.live() }

var (
	nodeTAP     = regexp.MustCompile(`^(\s*)(not ok|ok) \d+(?: - (.*))?$`)
	nodeSum     = regexp.MustCompile(`^(?:#|ℹ) (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$`)
	nodeSpecDur = regexp.MustCompile(` \([\d.]+m?s\)$`)
	swiftLike   = regexp.MustCompile(`^(?:Test|Suite) .* (?:passed|failed) after `)
)

func (n *node) line(s string) {
	testAt := n.testAt
	n.testAt = false
	trim := strings.TrimSpace(s)
	if !strings.HasPrefix(trim, "# ") && !strings.HasPrefix(trim, "ℹ ") {
		// not a summary line
	} else if m := nodeSum.FindStringSubmatch(trim); m != nil {
		v := atoi(m[2])
		switch m[1] {
		case "tests":
			n.inSum, n.sum = true, counts{}
		case "pass":
			n.sum.passed += v
		case "fail", "cancelled":
			n.sum.failed += v
		case "skipped", "todo":
			n.sum.skipped += v
		case "duration_ms":
			if n.inSum {
				n.t.closeWith(n.sum)
				n.inSum = false
			}
		}
		return
	}
	if strings.HasPrefix(trim, "TAP version ") {
		n.tap = true
		n.t.closeLive()
		return
	}
	if rest, ok := strings.CutPrefix(trim, "# Subtest: "); ok {
		n.tap = true
		lvl := indent(s) / 4
		if lvl > len(n.subtests) {
			lvl = len(n.subtests)
		}
		n.subtests = append(n.subtests[:lvl], rest)
		return
	}
	if n.tap && (strings.HasPrefix(trim, "ok ") || strings.HasPrefix(trim, "not ok ")) {
		if m := nodeTAP.FindStringSubmatch(s); m != nil {
			n.tapResult(len(m[1])/4, m[2] == "ok", m[3])
		}
		return
	}
	if strings.HasPrefix(trim, "test at ") {
		n.testAt = true
		return
	}
	if strings.HasSuffix(trim, "failing tests:") {
		n.recap = true
		return
	}
	n.specLine(s, trim, testAt)
}

func (n *node) tapResult(lvl int, ok bool, title string) {
	parent := len(n.child) > lvl+1 && n.child[lvl+1]
	for len(n.child) <= lvl {
		n.child = append(n.child, false)
	}
	n.child = n.child[:lvl+1]
	n.child[lvl] = true
	if parent {
		return
	}
	o := pass
	if !ok {
		o = fail
	}
	if i := strings.Index(title, " # "); i >= 0 {
		d := strings.ToUpper(strings.TrimSpace(title[i+3:]))
		if strings.HasPrefix(d, "SKIP") || strings.HasPrefix(d, "TODO") {
			o = skip
		}
		title = title[:i]
	}
	title = strings.ReplaceAll(title, `\#`, "#")
	path := append([]string{}, n.subtests[:min(lvl, len(n.subtests))]...)
	n.t.outcome(strings.Join(append(path, title), " > "), o, true)
}

func (n *node) specLine(s, trim string, testAt bool) {
	sym, rest, ok := strings.Cut(trim, " ")
	if !ok {
		return
	}
	o := -1
	switch sym {
	case "✔":
		o = pass
	case "✖":
		o = fail
	case "﹣":
		o = skip
	case "▶":
	default:
		return
	}
	if swiftLike.MatchString(rest) { // swift-testing uses the same marks
		return
	}
	if n.recap {
		if testAt {
			return
		}
		n.recap = false
	}
	in := indent(s)
	directive := ""
	if i := strings.Index(rest, " # "); i >= 0 {
		rest, directive = rest[:i], strings.TrimSpace(rest[i+3:])
	}
	hasDur := nodeSpecDur.MatchString(rest)
	title := nodeSpecDur.ReplaceAllString(rest, "")
	for len(n.suites) > 0 && n.suites[len(n.suites)-1].indent > in {
		n.suites = n.suites[:len(n.suites)-1]
	}
	if k := len(n.suites) - 1; k >= 0 && n.suites[k].indent == in {
		if n.suites[k].name == title && hasDur { // the suite's closing line
			n.suites = n.suites[:k]
			return
		}
		n.suites = n.suites[:k]
	}
	if o < 0 { // "▶ suite" opens it
		if !hasDur {
			n.suites = append(n.suites, jestLevel{in, title})
		}
		return
	}
	if strings.HasPrefix(strings.ToUpper(directive), "TODO") || strings.HasPrefix(strings.ToUpper(directive), "SKIP") {
		o = skip
	}
	parts := make([]string, 0, len(n.suites)+1)
	for _, l := range n.suites {
		parts = append(parts, l.name)
	}
	n.t.outcome(strings.Join(append(parts, title), " > "), o, true)
}

func (n *node) final() *Summary {
	if n.inSum { // a summary block cut before its last line
		n.t.closeWith(n.sum)
		n.inSum = false
	}
	return n.t.summary("node")
}
