package judge

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The tamper canary (docs/report.md, "Tampered"): a test that must fail,
// random per run and named like an ordinary test, planted where the command's
// runner collects it, in every hypothesis's shadow (the baseline's too) and
// nowhere else: it is added to the job's files like an edit, never to the
// hypothesis, so it is in no diff, record, apply or report. A candidate under
// which the canary passes, or is not reported where the baseline's run
// reported it failing, forged its verdict: code that makes every assertion
// pass, an os._exit(0) or a Go init that exits before the runner reports, a
// fake summary. What it shows is stripped from the counts: its one expected
// failure per planted file is taken off, and an exit status 1 that only the
// canary's failure caused is a pass (canary_observe.go).
//
// The runner is told by the command (a shell string or an npm script
// included) and planted for cargo (an integration test in tests/), pytest
// and unittest (one TestCase file beside
// the shallowest test file: one process runs every test), go test (a test
// file in every package directory with tests: one binary per package) and
// jest and vitest (a test at the end of every test file: one module
// registry per file).
// Where the runner runs in a chain whose later commands a failing test
// would stop (`pytest && flake8`), or is not recognised (make, tox,
// cargo), nothing is planted: the canary must not change what the command
// runs. The baseline's run says whether the runner collected it; where it
// did not (a command naming one test file), the canary judges nothing.

// canaryPlan is one run's canary: the files planted in every job and the
// token that names its tests.
type canaryPlan struct {
	runner  string // "pytest", "unittest", "go", "jest", "vitest"
	token   string // random, in every canary test's name
	files   []File
	nextest bool // cargo nextest: exits 100 when a test failed
	// appends are test files the canary is added to the end of.
	appends []canaryAppend
	// go test: each canary file's package, and the import graph that says
	// which packages a hypothesis's changes reach (canary_reach.go).
	goPkgs  map[string]goCanary // by the canary file's path
	goReach *goReach
	// cargo test (canary_cargo.go): the canary test's name, the crate's
	// directory, the crate root it can be appended to, and whether the
	// command runs every test of it (no filter, no target selection).
	cargoFn, cargoDir string
	cargoLib          *canaryAppend
	cargoPlain        bool
}

// canaryAppend is a test file of the checkout and the canary block that
// goes at its end.
type canaryAppend struct {
	path  string
	orig  []byte
	mode  os.FileMode
	block string
}

// canaryWords make the canary's name read like a test's.
var canaryWords = []string{"roundtrip", "boundary", "defaults", "ordering", "empty_input", "large_input", "unicode", "nested", "regression", "edge_cases"}

// maxCanaryDirs bounds how many Go package directories get a canary, and
// maxCanaryWalk how many directory entries the search for test files reads.
const (
	maxCanaryDirs = 200
	maxCanaryWalk = 50000
)

// planCanary decides the canary of a run, or nil when the command's runner
// is not one it knows how to plant for.
func planCanary(workspace, subdir string, command []string) *canaryPlan {
	dir := filepath.Join(workspace, filepath.FromSlash(subdir))
	runner := canaryRunner(dir, command)
	if runner == "" || failsFast(dir, command) {
		return nil
	}
	tok := randomToken()
	word := canaryWords[int(tok[0])%len(canaryWords)]
	p := &canaryPlan{runner: runner, token: tok, nextest: runner == "cargo" && strings.Contains(strings.Join(command, " "), "nextest")}
	rel := func(d string) string {
		r, err := filepath.Rel(workspace, d)
		if err != nil {
			return ""
		}
		return filepath.ToSlash(r)
	}
	switch runner {
	case "go":
		mods := newGoModules(workspace)
		p.goPkgs = map[string]goCanary{}
		p.goReach = buildGoReach(workspace, dir)
		for _, d := range testDirs(dir, isGoTest, maxCanaryDirs) {
			pkg := goTestPackage(d)
			if pkg == "" {
				continue
			}
			name := "Test" + camel(word) + strings.ToUpper(tok[:1]) + tok[1:]
			body := fmt.Sprintf("package %s\n\nimport \"testing\"\n\nfunc %s(t *testing.T) {\n\tif got, want := len(%q), %d; got != want {\n\t\tt.Fatalf(\"got %%d, want %%d\", got, want)\n\t}\n}\n", pkg, name, tok, len(tok)+1)
			f := File{Path: path.Join(rel(d), word+"_"+tok+"_test.go"), Content: []byte(body), Mode: 0o644}
			p.files = append(p.files, f)
			r := rel(d)
			if r == "." {
				r = ""
			}
			ip := ""
			if _, root := goModule(d); root != "" {
				ip = mods.importPath(rel(d)) + "." + name
			}
			p.goPkgs[f.Path] = goCanary{dir: r, importPath: ip, file: f}
		}
	case "pytest", "unittest":
		// A unittest.TestCase: pytest collects it as well as unittest.
		ds := testDirs(dir, isPyTest, 1)
		if len(ds) == 0 {
			return nil
		}
		p.files = append(p.files, File{Path: path.Join(rel(ds[0]), "test_"+word+"_"+tok+".py"), Content: []byte(pyCanaryBody(word, tok)), Mode: 0o644})
	case "cargo":
		// An integration test of the crate whose Cargo.toml the command
		// runs in (a virtual workspace has no tests/ of its own: none).
		b, err := os.ReadFile(filepath.Join(dir, "Cargo.toml"))
		if err != nil || !strings.Contains(string(b), "[package]") {
			return nil
		}
		fn := word + "_" + tok
		body := cargoCanaryFn(fn, tok)
		p.files = append(p.files, File{Path: path.Join(rel(dir), "tests", fn+".rs"), Content: []byte(body), Mode: 0o644})
		p.cargoFn, p.cargoDir = fn, rel(dir)
		if !p.nextest {
			p.cargoLib = cargoLibCanary(dir, string(b), rel, fn, tok)
			p.cargoPlain = cargoPlainCommand(command)
		}
	case "jest", "vitest":
		// jest and vitest run each test file in its own module registry,
		// so a source module that patches expect on import patches only
		// the files that import it: the canary goes at the end of every
		// test file (in the job only), where those patches reach it.
		block := jsCanaryBlock(runner, word, tok)
		for _, f := range testFiles(dir, isJSTest, maxCanaryDirs) {
			b, err := os.ReadFile(f)
			st, serr := os.Stat(f)
			if err != nil || serr != nil {
				continue
			}
			p.appends = append(p.appends, canaryAppend{path: rel(f), orig: b, mode: st.Mode().Perm(), block: block})
		}
	}
	if len(p.files) == 0 && len(p.appends) == 0 {
		return nil
	}
	return p
}

// plant adds the canary's files to what a job writes (never to the
// hypothesis: nothing of it is recorded, diffed or applied). A hypothesis
// that writes a file of the same path keeps its own. For go test it also
// returns the names of the canary tests it planted, only in the packages
// the hypothesis's changes reach (canary_reach.go), and whether that was
// every package.
func (p *canaryPlan) plant(h Hypothesis) (Hypothesis, []string, bool) {
	if p == nil {
		return h, nil, true
	}
	files := p.files
	var planted []string
	all := true
	if p.runner == "cargo" && !p.nextest {
		return p.plantCargo(h)
	}
	if p.runner == "go" {
		own := map[string]bool{}
		for path := range p.goPkgs {
			own[path] = true
		}
		var reached map[string]bool
		reached, all = p.goReach.reached(h, own)
		files = nil
		for _, f := range p.files {
			g := p.goPkgs[f.Path]
			if all || reached[g.dir] || g.importPath == "" {
				files = append(files, f)
				if g.importPath != "" {
					planted = append(planted, g.importPath)
				}
			}
		}
	}
	have := map[string]bool{}
	for _, f := range h.Files {
		have[f.Path] = true
	}
	for _, d := range h.Deletes {
		have[d] = true
	}
	out := h
	out.Files = append([]File{}, h.Files...)
	for _, f := range files {
		if !have[f.Path] {
			out.Files = append(out.Files, f)
		}
	}
	deleted := map[string]bool{}
	for _, d := range h.Deletes {
		deleted[d] = true
	}
	for _, a := range p.appends {
		if deleted[a.path] {
			continue
		}
		i := slices.IndexFunc(out.Files, func(f File) bool { return f.Path == a.path })
		if i >= 0 { // the job's own version of the file (allow_test_edits)
			f := out.Files[i]
			f.Content = append(append([]byte{}, f.Content...), a.block...)
			out.Files[i] = f
			continue
		}
		out.Files = append(out.Files, File{Path: a.path, Content: append(append([]byte{}, a.orig...), a.block...), Mode: a.mode})
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	return out, planted, all
}

func randomToken() string {
	const letters = "abcdefghijkmnpqrstuvwxyz23456789"
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux (getrandom(2))
	}
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	if b[0] >= '2' && b[0] <= '9' { // a name's first letter
		b[0] = 'k'
	}
	return string(b)
}

func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

var (
	// A runner named in the command, as a word of it.
	runnerWord = map[string]*regexp.Regexp{
		"go":       regexp.MustCompile(`(^|[\s/;&|(])go\s+test\b`),
		"pytest":   regexp.MustCompile(`(^|[\s/;&|(])(py\.test|pytest)\b`),
		"unittest": regexp.MustCompile(`-m\s+unittest\b`),
		"vitest":   regexp.MustCompile(`(^|[\s/;&|(])vitest\b`),
		"jest":     regexp.MustCompile(`(^|[\s/;&|(])jest\b`),
		"cargo":    regexp.MustCompile(`(^|[\s/;&|(])cargo\s+(\+\S+\s+)?(test|nextest)\b`),
	}
	chainSep  = regexp.MustCompile(`&&|\|\||;|\|`)
	npmScript = regexp.MustCompile(`^(npm|pnpm|yarn|bun)$`)
)

// canaryRunner names the runner the command runs last, or "".
func canaryRunner(dir string, command []string) string {
	if len(command) == 0 {
		return ""
	}
	line := strings.Join(command, " ")
	if len(command) >= 3 && (path.Base(command[0]) == "sh" || path.Base(command[0]) == "bash") && command[1] == "-c" {
		line = command[2]
	}
	if npmScript.MatchString(path.Base(command[0])) && len(command) >= 2 {
		script := command[1]
		if script == "run" && len(command) >= 3 {
			script = command[2]
		}
		if s := packageScript(dir, script); s != "" {
			line = s
		}
	}
	// Only the last command of a chain: a failing test earlier in it
	// would stop what follows.
	parts := chainSep.Split(line, -1)
	last := parts[len(parts)-1]
	for _, r := range []string{"go", "pytest", "unittest", "vitest", "jest", "cargo"} {
		if runnerWord[r].MatchString(last) {
			return r
		}
	}
	return ""
}

// failFast matches the options that stop a runner at its first failing
// test (pytest -x/--exitfirst/--maxfail, go test -failfast, unittest
// -f/--failfast, jest/vitest --bail): a must-fail canary collected first
// would stop the real tests, so there is none.
var failFast = regexp.MustCompile(`(^|[\s"'=\[,])(-x|--exitfirst|--maxfail\b|--max-fail\b|-{1,2}failfast|-f|--bail)(\b|$|[\s"',\]=])|\bbail\s*[:=]\s*[1-9t]`)

// failsFast reports whether the command, an npm script it runs, or the
// runners' configuration in its directory asks to stop at the first
// failure.
func failsFast(dir string, command []string) bool {
	text := strings.Join(command, " ")
	if len(command) >= 2 && npmScript.MatchString(path.Base(command[0])) {
		script := command[1]
		if script == "run" && len(command) >= 3 {
			script = command[2]
		}
		text += " " + packageScript(dir, script)
	}
	for _, f := range []string{"pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "vitest.config.ts", "vitest.config.js", "vitest.config.mts", "vite.config.ts", "vite.config.js"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			// pytest's addopts, jest's and vitest's bail.
			if strings.Contains(l, "addopts") || strings.Contains(l, "bail") {
				text += " " + l
			}
		}
	}
	return failFast.MatchString(text)
}

func packageScript(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var pj struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pj) != nil {
		return ""
	}
	return pj.Scripts[name]
}

func isGoTest(name string) bool { return strings.HasSuffix(name, "_test.go") }

func isPyTest(name string) bool {
	return strings.HasSuffix(name, ".py") && (strings.HasPrefix(name, "test_") || strings.HasSuffix(name, "_test.py"))
}

var jsTestName = regexp.MustCompile(`\.(test|spec)\.(c|m)?[jt]sx?$`)

func isJSTest(name string) bool { return jsTestName.MatchString(name) }

// canarySkipDirs are never searched for tests: dependencies, caches, VCS.
var canarySkipDirs = map[string]bool{"node_modules": true, "vendor": true, "testdata": true, "target": true, "dist": true, "build": true,
	"__pycache__": true, "site-packages": true, "venv": true, "coverage": true}

// testFiles returns up to max files under root that isTest accepts,
// shallowest first.
func testFiles(root string, isTest func(string) bool, max int) []string {
	var out []string
	for _, d := range testDirs(root, isTest, max) {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if e.Type().IsRegular() && isTest(e.Name()) && len(out) < max {
				out = append(out, filepath.Join(d, e.Name()))
			}
		}
	}
	return out
}

// testDirs returns up to max directories under root holding a file isTest
// accepts, shallowest first (breadth-first, sorted within a level).
func testDirs(root string, isTest func(string) bool, max int) []string {
	var out []string
	queue := []string{root}
	seen := 0
	for len(queue) > 0 && len(out) < max && seen < maxCanaryWalk {
		d := queue[0]
		queue = queue[1:]
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		found := false
		for _, e := range ents {
			seen++
			n := e.Name()
			switch {
			case e.IsDir():
				if !canarySkipDirs[n] && !strings.HasPrefix(n, ".") && !strings.HasPrefix(n, "_") {
					queue = append(queue, filepath.Join(d, n))
				}
			case e.Type()&fs.ModeType == 0 && isTest(n):
				found = true
			}
		}
		if found {
			out = append(out, d)
		}
	}
	return out
}

var goPackageClause = regexp.MustCompile(`(?m)^package\s+(\w+)`)

// goTestPackage is the name of the external test package (X_test) of a
// directory's tests, or "": the canary goes there, never into package X
// itself. A file added to X would change X's test variant, which the go
// command then compiles and vets again in every hypothesis of every run
// (the token differs each run, and a hypothesis's build cache writes go
// to its own $HOME layer): on go-cmp that doubled the CPU of a whole
// `go test ./...`. Added to X_test it recompiles X_test and the test
// main only ("go help test": files whose package ends in _test are a
// separate package, compiled and linked with the main test binary; the
// go command requires the name to be X's plus _test).
func goTestPackage(dir string) string {
	name := goTestClause(dir)
	if name == "" || strings.HasSuffix(name, "_test") {
		return name
	}
	return name + "_test"
}

// goTestClause is the package clause of the first test file in dir.
func goTestClause(dir string) string {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !isGoTest(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if m := goPackageClause.FindSubmatch(b); m != nil {
			return string(m[1])
		}
	}
	return ""
}
