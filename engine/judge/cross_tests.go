package judge

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// A candidate's proposed tests (docs/judge.md, "Cross-examination"): the test
// functions its judge part adds or changes, found by reading the test files
// (old against new), and how to find each in a runner's output. Reading the
// source, not the output, is what lets a changed test be told from an
// unchanged one of the same name, and lets the cross phase select the tests
// before it runs them.

// proposedTest is one test a candidate adds or changes.
type proposedTest struct {
	path string // workspace-relative test file
	// name is the test as its language names it: "test_x" or
	// "TestClass::test_x" (Python), "TestX" (Go), the title given to
	// it()/test() (JavaScript).
	name string
	lang string // "py", "go" or "js"
}

var (
	pyClass  = regexp.MustCompile(`^(\s*)class\s+(\w+)`)
	pyDef    = regexp.MustCompile(`^(\s*)(?:async\s+)?def\s+(test\w*)\s*\(`)
	goFunc   = regexp.MustCompile(`^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)`)
	jsTestRe = regexp.MustCompile(`\b(?:it|test)(?:\.(?:only|concurrent|fails|skip|todo))?\s*\(\s*(?:'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)"|` + "`" + `((?:\\.|[^` + "`" + `\\])*)` + "`" + `)`)
)

// testLang is the language of a test file by its name, "" for a file the
// cross phase cannot read tests from (runner configuration, data).
func testLang(p string) string {
	switch ext := path.Ext(p); {
	case ext == ".py":
		return "py"
	case strings.HasSuffix(p, "_test.go"):
		return "go"
	case ext == ".js" || ext == ".ts" || ext == ".mjs" || ext == ".cjs" || ext == ".mts" || ext == ".cts" || ext == ".jsx" || ext == ".tsx":
		return "js"
	}
	return ""
}

// testBlocks returns each test in a file's source with its text, in order.
func testBlocks(lang string, src []byte) (names []string, text map[string]string) {
	text = map[string]string{}
	lines := strings.SplitAfter(string(src), "\n")
	add := func(name, body string) {
		if _, dup := text[name]; !dup {
			names = append(names, name)
		}
		text[name] += body
	}
	switch lang {
	case "py":
		type cls struct {
			indent int
			name   string
		}
		var classes []cls
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			if strings.TrimSpace(l) == "" {
				continue
			}
			ind := len(l) - len(strings.TrimLeft(l, " \t"))
			for len(classes) > 0 && ind <= classes[len(classes)-1].indent {
				classes = classes[:len(classes)-1]
			}
			if m := pyClass.FindStringSubmatch(l); m != nil {
				classes = append(classes, cls{len(m[1]), m[2]})
				continue
			}
			m := pyDef.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			name := m[2]
			if len(classes) > 0 {
				name = classes[len(classes)-1].name + "::" + name
			}
			// The decorators above belong to the test (a parametrize list
			// changed is a test changed).
			start := i
			for start > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "@") {
				start--
			}
			end := i + 1
			for end < len(lines) {
				t := lines[end]
				if strings.TrimSpace(t) != "" && len(t)-len(strings.TrimLeft(t, " \t")) <= len(m[1]) {
					break
				}
				end++
			}
			// Blank lines after it belong to no test (appending a test
			// after the last one adds one).
			add(name, strings.TrimRight(strings.Join(lines[start:end], ""), " \t\n"))
			i = end - 1
		}
	case "go":
		for i := 0; i < len(lines); i++ {
			m := goFunc.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			end := i + 1
			for end < len(lines) && !strings.HasPrefix(lines[end], "}") {
				end++
			}
			add(m[1], strings.Join(lines[i:min(end+1, len(lines))], ""))
			i = end
		}
	case "js":
		s := string(src)
		locs := jsTestRe.FindAllStringSubmatchIndex(s, -1)
		for k, loc := range locs {
			var title string
			for g := 1; g <= 3; g++ {
				if loc[2*g] >= 0 {
					title = s[loc[2*g]:loc[2*g+1]]
				}
			}
			end := callEnd(s, loc[0])
			if k+1 < len(locs) && locs[k+1][0] < end {
				end = locs[k+1][0] // nested (a test() inside a test?): stop there
			}
			add(title, s[loc[0]:end])
		}
	}
	return names, text
}

// proposedTests lists what a candidate's judge files add or change of the
// tests: every test of a new test file, and the tests of a changed file
// that are new or whose text differs from the checkout's.
func proposedTests(files []File, orig map[string]FileState) []proposedTest {
	var out []proposedTest
	for _, f := range files {
		lang := testLang(f.Path)
		if lang == "" || (lang == "py" && !isPyTestFile(f.Path)) {
			continue
		}
		names, text := testBlocks(lang, f.Content)
		var old map[string]string
		if o := orig[f.Path]; o.Exists {
			_, old = testBlocks(lang, o.Content)
		}
		for _, n := range names {
			if prev, ok := old[n]; ok && prev == text[n] {
				continue
			}
			out = append(out, proposedTest{path: f.Path, name: n, lang: lang})
		}
	}
	return out
}

// isPyTestFile leaves out Python files under a test directory that hold
// no tests by convention (helpers, __init__.py, conftest.py's fixtures).
func isPyTestFile(p string) bool {
	b := path.Base(p)
	return b != "conftest.py" && b != "__init__.py"
}

// matches reports whether a runner's test name is (a run of) this test.
func (t proposedTest) matches(name string, mods *goModules) bool {
	switch t.lang {
	case "py":
		if file, rest, ok := strings.Cut(name, "::"); ok {
			return samePath(file, t.path) && (rest == t.name || strings.HasPrefix(rest, t.name+"[") || strings.HasPrefix(rest, t.name+"::"))
		}
		// unittest: "pkg.module.Class.test_x".
		dotted := strings.ReplaceAll(t.name, "::", ".")
		if !strings.HasSuffix(name, "."+dotted) && name != dotted {
			return false
		}
		mod := strings.TrimSuffix(strings.TrimSuffix(name, dotted), ".")
		return mod == "" || nameInFile(mod+".x", t.path, nil)
	case "go":
		pkg := mods.importPath(path.Dir(t.path))
		return name == pkg+"."+t.name || strings.HasPrefix(name, pkg+"."+t.name+"/")
	case "js":
		file, _, _ := strings.Cut(name, " > ")
		if f2, _, ok := strings.Cut(name, " › "); ok && len(f2) < len(file) {
			file = f2
		}
		return samePath(file, t.path) && (strings.HasSuffix(name, " > "+t.name) || strings.HasSuffix(name, " › "+t.name))
	}
	return false
}

// unitFailed reports whether a failing name is the whole file's or
// package's (a collection error, a build failure): every test in it failed.
func (t proposedTest) unitFailed(name string, mods *goModules) bool {
	switch t.lang {
	case "go":
		return name == mods.importPath(path.Dir(t.path))
	default:
		return samePath(name, t.path)
	}
}

// String is how the report names the test: FILE::NAME (Go: FILE:NAME,
// JavaScript: FILE > title).
func (t proposedTest) String() string {
	if t.lang == "js" {
		return t.path + " > " + t.name
	}
	return t.path + "::" + t.name
}

// goModules finds the import path of a workspace directory from the
// nearest go.mod at or above it.
type goModules struct {
	ws    string
	cache map[string]string
}

func newGoModules(ws string) *goModules { return &goModules{ws: ws, cache: map[string]string{}} }

func (g *goModules) importPath(dir string) string {
	if g == nil {
		return dir
	}
	if p, ok := g.cache[dir]; ok {
		return p
	}
	p := dir
	for d, rel := dir, ""; ; {
		if mod := goModuleLine(filepath.Join(g.ws, filepath.FromSlash(d), "go.mod")); mod != "" {
			p = path.Join(mod, rel)
			break
		}
		if d == "." || d == "/" || d == "" {
			break
		}
		rel = path.Join(path.Base(d), rel)
		d = path.Dir(d)
	}
	g.cache[dir] = p
	return p
}

func goModuleLine(gomod string) string {
	b, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// listProposed is a candidate's proposed_tests before the cross phase ran
// (reproduces null): [] when it proposes none.
func listProposed(s judgeSplit, orig map[string]FileState) []ProposedTest {
	out := []ProposedTest{}
	for _, t := range proposedTests(s.files, orig) {
		out = append(out, ProposedTest{Path: t.path, Test: t.name})
	}
	return out
}

// callEnd returns the end of the call whose name starts at i: just past
// the parenthesis that closes the first one after i, skipping string
// literals and comments (roughly: template literals' ${} nesting and
// regular expression literals are not understood; an unclosed call ends
// at the end of the text).
func callEnd(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '\'', '"', '`':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(s) && s[i+1] == '/' {
				for i < len(s) && s[i] != '\n' {
					i++
				}
			} else if i+1 < len(s) && s[i+1] == '*' {
				if j := strings.Index(s[i+2:], "*/"); j >= 0 {
					i += j + 3
				} else {
					i = len(s)
				}
			}
		}
	}
	return len(s)
}
