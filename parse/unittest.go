package parse

import (
	"regexp"
	"strings"
)

// unittest reads `python -m unittest` (and runners that print its format:
// Django's, nose2): "Ran N tests in Xs" then "OK", "OK (skipped=2)" or
// "FAILED (failures=1, errors=1, skipped=1, expected failures=1,
// unexpected successes=1)".
//
// Counting follows unittest's own verdict: failures and errors count as
// failed, and so do unexpected successes (they make the run unsuccessful since
// Python 3.11); skipped and expected failures count as skipped; passed is the
// rest of N.
//
// Names are "module.Class.test_method", from -v lines
// ("test_add (test_calc.TestCalc.test_add) ... ok", or the pre-3.11
// "test_add (test_calc.TestCalc) ... ok") and from the "FAIL: ..."/"ERROR: ..."
// headers that every mode prints. Live counts grow with -v lines; the
// one-character progress line of the default mode is too generic to trust.
type unittest struct {
	t       tally
	ran     int    // N of the last "Ran N tests", -1 when none is waiting for its verdict
	pending string // -v: a test whose docstring line carries the result
	rule    bool   // the previous line was unittest's "=====" rule
}

func newUnittest() *unittest { return &unittest{ran: -1} }

func (u *unittest) framework() string { return "unittest" }
func (u *unittest) recognised() bool  { return u.t.seen }
func (u *unittest) live() counts      { return u.t.live() }

var (
	utRan     = regexp.MustCompile(`^Ran (\d+) tests? in [\d.]+s$`)
	utVerbose = regexp.MustCompile(`^(\w+) \(([\w.]+)\)(?: \(.*\))?(?: \.\.\. (.*))?$`)
	utHeader  = regexp.MustCompile(`^(FAIL|ERROR|UNEXPECTED SUCCESS): (\w+) \(([\w.]+)\)`)
)

func (u *unittest) line(s string) {
	rule := u.rule
	u.rule = len(s) >= 20 && strings.Trim(s, "=") == ""
	if !strings.HasPrefix(s, "Ran ") {
		// not the count line
	} else if m := utRan.FindStringSubmatch(s); m != nil {
		u.ran = atoi(m[1])
		u.t.seen = true
		return
	}
	if u.ran >= 0 && u.verdict(s) {
		return
	}
	if rule {
		if m := utHeader.FindStringSubmatch(s); m != nil {
			u.t.fail.add(utName(m[2], m[3]))
			return
		}
	}
	if u.pending != "" {
		// "Docstring first line ... ok" after "test_doc (m.C.test_doc)".
		if i := strings.LastIndex(s, " ... "); i >= 0 && u.result(u.pending, s[i+5:]) {
			u.pending = ""
			return
		}
		u.pending = ""
	}
	if i := strings.Index(s, " ("); i <= 0 || strings.IndexByte(s[:i], ' ') >= 0 {
		return
	}
	m := utVerbose.FindStringSubmatch(s)
	if m == nil {
		return
	}
	name := utName(m[1], m[2])
	if !strings.Contains(s, " ... ") {
		u.pending = name
		return
	}
	u.result(name, m[3])
}

// result records a -v outcome word; false when it is not one.
func (u *unittest) result(name, res string) bool {
	switch {
	case res == "ok":
		u.t.outcome(name, pass, true)
	case res == "FAIL" || res == "ERROR" || res == "unexpected success":
		u.t.outcome(name, fail, true)
	case strings.HasPrefix(res, "skipped") || res == "expected failure":
		u.t.outcome(name, skip, true)
	default:
		return false
	}
	return true
}

// verdict reads the line after "Ran N tests" that closes the run.
func (u *unittest) verdict(s string) bool {
	var detail string
	switch {
	case s == "OK" || s == "NO TESTS RAN":
	case strings.HasPrefix(s, "OK (") && strings.HasSuffix(s, ")"):
		detail = s[4 : len(s)-1]
	case strings.HasPrefix(s, "FAILED (") && strings.HasSuffix(s, ")"):
		detail = s[8 : len(s)-1]
	default:
		return false
	}
	var c counts
	for _, kv := range strings.Split(detail, ", ") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch k {
		case "failures", "errors", "unexpected successes":
			c.failed += atoi(v)
		case "skipped", "expected failures":
			c.skipped += atoi(v)
		}
	}
	c.passed = max(u.ran-c.failed-c.skipped, 0)
	u.t.closeWith(c)
	u.ran = -1
	return true
}

func (u *unittest) final() *Summary {
	if u.ran >= 0 {
		// "Ran N" without its verdict line (cut output): what the -v lines
		// said failed and skipped, the rest of N passed.
		c := u.t.cur
		c.passed = max(u.ran-c.failed-c.skipped, 0)
		u.t.closeWith(c)
		u.ran = -1
	}
	return u.t.summary("unittest")
}

// utName turns the method and the parenthesised id into "module.Class.method"
// for both the 3.11+ form (id ends with the method) and the older one (id is
// "module.Class").
func utName(method, id string) string {
	if strings.HasSuffix(id, "."+method) {
		return id
	}
	return id + "." + method
}
