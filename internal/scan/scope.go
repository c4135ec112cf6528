package scan

import (
	"regexp"
	"strings"
)

// Scope is where in a file a line rule applies.
type Scope int

const (
	// Anywhere: any code line (comments and docstrings are not code).
	Anywhere Scope = iota
	// ImportTime: code that runs when the module is loaded, before the
	// runner reports: Python's module and class bodies outside
	// `if __name__ == "__main__":`, Go's init functions and package-level
	// var initializers, JavaScript outside any function. A file starting
	// with "#!" is a script, not a module a test imports: nothing in it is.
	ImportTime
)

// context is what Scan knows of a file beyond its lines: which lines are
// code and which run at import time.
type context struct {
	lang     Lang
	lines    []string
	code     []bool
	atImport []bool
}

func newContext(lang Lang, lines []string) *context {
	c := &context{lang: lang, lines: lines, code: make([]bool, len(lines)), atImport: make([]bool, len(lines))}
	script := len(lines) > 0 && strings.HasPrefix(lines[0], "#!")
	switch lang {
	case Python:
		c.python()
	case Go:
		c.golang()
	case JS:
		c.js()
	}
	if script {
		for i := range c.atImport {
			c.atImport[i] = false
		}
	}
	return c
}

func (c *context) isCode(i int) bool { return c.code[i] }

func (c *context) inScope(s Scope, i int) bool {
	return s == Anywhere || c.atImport[i]
}

var (
	pyDef  = regexp.MustCompile(`^\s*(async\s+)?def\s`)
	pyMain = regexp.MustCompile(`^\s*if\s+__name__\s*==`)
)

func indent(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 8
		default:
			return n
		}
	}
	return n
}

func (c *context) python() {
	type block struct {
		ind  int
		body bool // a def or __main__ block: its body does not run at import
	}
	var stack []block
	var inDoc string // the quote of an open multi-line string
	for i, l := range c.lines {
		t := strings.TrimSpace(l)
		if inDoc != "" {
			if strings.Contains(t, inDoc) {
				inDoc = ""
			}
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(t, q) == 1 && !strings.Contains(t, "="+q) && strings.HasPrefix(t, q) {
				inDoc = q
			}
		}
		if inDoc != "" || isDocstring(t) {
			continue
		}
		c.code[i] = true
		ind := indent(l)
		for len(stack) > 0 && stack[len(stack)-1].ind >= ind {
			stack = stack[:len(stack)-1]
		}
		inBody := pyDef.MatchString(l) || pyMain.MatchString(l)
		for _, b := range stack {
			inBody = inBody || b.body
		}
		c.atImport[i] = !inBody
		if strings.HasSuffix(stripPyComment(t), ":") {
			stack = append(stack, block{ind: ind, body: pyDef.MatchString(l) || pyMain.MatchString(l)})
		}
	}
}

func stripPyComment(t string) string {
	if i := strings.Index(t, " #"); i >= 0 {
		return strings.TrimSpace(t[:i])
	}
	return t
}

// stringLit matches string literals (roughly: no escapes across lines), so
// brackets inside them do not count.
var stringLit = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`")

func cLikeCode(t string) bool {
	return t != "" && !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "/*") && !strings.HasPrefix(t, "*")
}

var goInitDecl = regexp.MustCompile(`^(func\s+init\s*\(\s*\)|var\b)`)

// golang marks the lines of init functions and package-level var
// declarations (their initializers run before main and before any test).
func (c *context) golang() {
	depth := 0
	in := false
	for i, l := range c.lines {
		t := strings.TrimSpace(l)
		// A //go:linkname directive is a comment the compiler obeys.
		c.code[i] = cLikeCode(t) || strings.HasPrefix(t, "//go:linkname")
		if !c.code[i] {
			c.atImport[i] = in
			continue
		}
		if depth == 0 {
			in = goInitDecl.MatchString(l)
		}
		c.atImport[i] = in
		s := stringLit.ReplaceAllString(l, `""`)
		if j := strings.Index(s, "//"); j >= 0 {
			s = s[:j]
		}
		for _, r := range s {
			switch r {
			case '{', '(', '[':
				depth++
			case '}', ')', ']':
				depth--
			}
		}
		if depth <= 0 {
			depth = 0
			in = false
		}
	}
}

var jsControl = regexp.MustCompile(`^\s*(\}\s*)?(if|for|while|switch|catch|with|else|try|do|finally)\b`)

// js marks the lines outside every function body.
func (c *context) js() {
	var stack []bool // per open brace: whether it opens a function body
	for i, l := range c.lines {
		t := strings.TrimSpace(l)
		c.code[i] = cLikeCode(t)
		inFunc := false
		for _, f := range stack {
			inFunc = inFunc || f
		}
		c.atImport[i] = !inFunc
		if !c.code[i] {
			continue
		}
		s := stringLit.ReplaceAllString(l, `""`)
		if j := strings.Index(s, "//"); j >= 0 {
			s = s[:j]
		}
		for j, r := range s {
			switch r {
			case '{':
				stack = append(stack, opensFunc(s[:j]))
			case '}':
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
		}
	}
}

func opensFunc(before string) bool {
	b := strings.TrimSpace(before)
	switch {
	case strings.HasSuffix(b, "=>"), strings.Contains(b, "function"):
		return true
	case strings.HasSuffix(b, ")"):
		return !jsControl.MatchString(b)
	}
	return false
}

// body returns the statements of the function defined on line i, and the
// indexes of the lines they are on.
func (c *context) body(i int) ([]string, []int) {
	l := c.lines[i]
	if c.lang == Python {
		if k := strings.Index(l, "):"); k >= 0 && strings.TrimSpace(stripPyComment(l[k+2:])) != "" {
			return []string{l[k+2:]}, []int{i}
		}
		ind := indent(l)
		var out []string
		var at []int
		for j := i + 1; j < len(c.lines); j++ {
			if strings.TrimSpace(c.lines[j]) == "" {
				continue
			}
			if indent(c.lines[j]) <= ind {
				break
			}
			out, at = append(out, c.lines[j]), append(at, j)
		}
		return out, at
	}
	if o := strings.Index(l, "{"); o >= 0 {
		if e := strings.LastIndex(l, "}"); e > o {
			return strings.Split(l[o+1:e], ";"), []int{i}
		}
	}
	ind := indent(l)
	var out []string
	var at []int
	for j := i + 1; j < len(c.lines); j++ {
		t := strings.TrimSpace(c.lines[j])
		if strings.HasPrefix(t, "}") && indent(c.lines[j]) <= ind {
			break
		}
		out, at = append(out, t), append(at, j)
	}
	return out, at
}
