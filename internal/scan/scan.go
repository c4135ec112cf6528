// Package scan looks at the code a candidate adds for what only a cheat needs:
// code that behaves differently under the test runner, that patches the
// runner's internals, that ends the process before the runner reports, that
// prints the runner's own result lines, or that makes every comparison succeed
// (docs/report.md, "Suspicious"; EvilGenie and ImpossibleBench found these are
// how agents game a test suite without touching a test file).
//
// It is pure and imports nothing of shadow's: Scan gets one file's new
// content and which of its lines the candidate added, and returns the rules
// those lines hit. Every spelling rule is a row of the one table in
// rules.go, and every introspection class (ask.go) judges what the code
// asks through the language's names; each has a test and the legitimate
// code it must not flag.
package scan

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// File is one file of a candidate's code part.
type File struct {
	// Path is workspace-relative, '/'-separated; its extension picks the
	// language.
	Path string
	// Content is the candidate's whole new version of the file: scopes
	// (inside Go's init, at Python's import time) need the lines around
	// the added ones.
	Content []byte
	// Added holds the 1-based numbers of the lines the candidate added or
	// changed; nil means every line (a new file).
	Added map[int]bool
	// Orig is the checkout's version of the file (nil: a new file). What
	// the checkout's code already asks is not the candidate's doing, even
	// on a line the candidate moved or rewrote.
	Orig []byte
}

// Hit is one rule an added line matched.
type Hit struct {
	Path string
	Line int    // 1-based
	Rule string // the rule's ID
	Why  string // what the line does, for the report
	Text string // the line, trimmed and capped
}

// String is the sentence the report shows: file, line and what it does.
func (h Hit) String() string {
	return fmt.Sprintf("%s:%d %s (%s: %q)", h.Path, h.Line, h.Why, h.Rule, h.Text)
}

// Lang is a language the rules know.
type Lang string

const (
	Python Lang = "python"
	Go     Lang = "go"
	JS     Lang = "js" // JavaScript and TypeScript
)

// Wants reports whether Scan has anything to say about a path: a
// language the rules know, or a file the interpreter runs at startup.
func Wants(p string) bool { return LangOf(p) != "" || shadowsRunner(p) != "" }

// LangOf returns the language of a path, or "" when no rule applies to it.
func LangOf(p string) Lang {
	switch strings.ToLower(path.Ext(p)) {
	case ".py", ".pyi", ".pyw":
		return Python
	case ".go":
		return Go
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx":
		return JS
	}
	return ""
}

// Scan returns the hits of f's added lines, in line order, at most one per
// line and rule.
func Scan(f File) []Hit {
	lang := LangOf(f.Path)
	if lang == "" {
		if why := shadowsRunner(f.Path); why != "" && f.Orig == nil {
			return []Hit{{Path: f.Path, Line: 1, Rule: RuleStartup, Why: why, Text: firstLine(f.Content)}}
		}
		return nil
	}
	lines := strings.Split(strings.ReplaceAll(string(f.Content), "\r\n", "\n"), "\n")
	ctx := newContext(lang, lines)
	var hits []Hit
	for _, r := range Rules {
		if !r.applies(lang) {
			continue
		}
		for i, l := range lines {
			n := i + 1
			if !ctx.isCode(i) || !hasAny(l, r.Has) {
				continue
			}
			if r.Line != nil {
				if !f.added(n) || !r.Line.MatchString(l) || (r.Unless != nil && r.Unless.MatchString(l)) || !ctx.inScope(r.Scope, i) {
					continue
				}
				hits = append(hits, hit(f.Path, n, r, l))
				continue
			}
			if r.Def != nil && r.Def.MatchString(l) {
				body, bodyLines := ctx.body(i)
				if !constantBody(body, r.Body) {
					continue
				}
				// Hit when the candidate added the definition or its body.
				at := 0
				for _, b := range append([]int{i}, bodyLines...) {
					if f.added(b + 1) {
						at = b + 1
						break
					}
				}
				if at > 0 {
					hits = append(hits, hit(f.Path, i+1, r, l))
				}
			}
		}
	}
	if !tableOnly {
		hits = append(hits, askHits(f, lang, lines, hits)...)
	}
	sortHits(hits)
	return hits
}

// tableOnly leaves the introspection classes out: the scan as it was
// before them, for the benchmark's ratio.
var tableOnly = false

// askHits are the introspection classes' hits on added lines (ask.go),
// less what the checkout's version of the file already asks and the
// lines a table rule already named.
func askHits(f File, lang Lang, lines []string, table []Hit) []Hit {
	src := strings.Join(lines, "\n")
	var out []Hit
	var had map[string]bool
	named := map[int]bool{}
	for _, h := range table {
		named[h.Line] = true
	}
	for _, fd := range analyze(lang, f.Path, src, lines) {
		if (!f.added(fd.line) && fd.rule != RuleUnreadable) || named[fd.line] || fd.line < 1 || fd.line > len(lines) {
			continue
		}
		if f.Orig != nil && had == nil {
			had = map[string]bool{}
			ol := strings.Split(strings.ReplaceAll(string(f.Orig), "\r\n", "\n"), "\n")
			for _, o := range analyze(lang, f.Path, strings.Join(ol, "\n"), ol) {
				had[o.rule+"\x00"+o.key] = true
			}
		}
		if had[fd.rule+"\x00"+fd.key] {
			continue
		}
		named[fd.line] = true
		r := Rule{ID: fd.rule, Why: fd.why}
		out = append(out, hit(f.Path, fd.line, r, lines[fd.line-1]))
	}
	return out
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(s)
}

func (f File) added(n int) bool { return f.Added == nil || f.Added[n] }

func hit(p string, n int, r Rule, l string) Hit {
	t := strings.TrimSpace(l)
	if len(t) > 80 {
		t = t[:77] + "..."
	}
	return Hit{Path: p, Line: n, Rule: r.ID, Why: r.Why, Text: t}
}

func sortHits(h []Hit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].Line < h[j-1].Line; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// constantBody reports whether a function body is one statement matching
// want (docstrings, comments and blank lines aside).
func constantBody(body []string, want *regexp.Regexp) bool {
	var stmts []string
	for _, s := range body {
		s = strings.TrimSpace(s)
		if s == "" || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "//") || isDocstring(s) {
			continue
		}
		stmts = append(stmts, s)
	}
	return len(stmts) == 1 && want.MatchString(stmts[0])
}

func isDocstring(s string) bool {
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 6 {
			return true
		}
	}
	return false
}

func hasAny(l string, subs []string) bool {
	if subs == nil {
		return true
	}
	for _, s := range subs {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}
