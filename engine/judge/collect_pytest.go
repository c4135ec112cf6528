package judge

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// pytest's test files (collect.go): what `pytest --collect-only` lists
// when run with the command's own arguments on the checkout, sealed like
// a hypothesis with no changes (it imports the checkout's conftest.py and
// test modules, as the baseline's run does), and the python_files globs
// of the configuration pytest reads, for files a candidate adds (the
// collection can name only files that exist).

// collectJobName is the collection job's hypothesis name: ':' is never in
// a spec's names (engine/spec/validate.go), so no sandbox wrapper that
// knows a hypothesis by name (the warm layer's baseline) takes it for one.
const collectJobName = "shadow:collect"

// collectTimeout bounds the collection (the run's --timeout when shorter).
const collectTimeout = 2 * time.Minute

// maxCollectOutput bounds what is kept of the collection's output.
const maxCollectOutput = 8 << 20

func collectPytest(ctx context.Context, cfg *Config, inv *invocation) *testCollection {
	c := &testCollection{runner: "pytest", via: "config", files: map[string]bool{}}
	ini := readPytestConfig(cfg.Workspace, cfg.Subdir, inv.args)
	args := append(append([]string{}, ini.addopts...), inv.args...)
	patterns := ini.pythonFiles
	if len(patterns) == 0 {
		patterns = []string{"test_*.py", "*_test.py"} // pytest's default python_files
	}
	roots, files := pytestRoots(cfg.Workspace, cfg.Subdir, args)
	if len(roots) == 0 && len(files) == 0 {
		for _, tp := range ini.testpaths {
			if r, ok := relTo(ini.dir, tp); ok {
				roots = append(roots, r)
			}
		}
	}
	if len(roots) == 0 && len(files) == 0 {
		roots = []string{cfg.Subdir}
	}
	for _, f := range files {
		c.files[f] = true
	}
	for _, r := range roots {
		for _, p := range patterns {
			if g := newRunnerGlob(r, p); g != nil {
				c.globs = append(c.globs, g)
			}
		}
	}
	if !inv.argv {
		c.note = "the command is a shell line: pytest's configuration was read, its collection not run"
		return c
	}
	if !pytestHookable(cfg.Workspace, roots, ini, args, patterns) {
		// Nothing here can make pytest collect otherwise than its
		// configuration says (no conftest.py, no -p plugin, no
		// python_files naming every module): the collection would
		// only cost a pytest start (bench/collect.sh).
		return c
	}
	got, err := runPytestCollection(ctx, cfg, inv)
	if err != nil {
		c.note = err.Error()
		return c
	}
	for _, f := range got {
		// A .py file is a test module where python_files (or the
		// command, naming it) says so: plugins collect other modules
		// too (--doctest-modules, pytest-mypy's and the linters' items
		// for every source file), and those are the code under test.
		// Other files pytest collects only through a conftest.py hook
		// or a plugin for tests written in them (YAML cases, doctest
		// text files): they are tests.
		if !strings.HasSuffix(f, ".py") || c.files[f] || c.matches(f) {
			c.files[f] = true
		}
	}
	c.via = "collection"
	return c
}

// collectDrop are pytest options left out of the collection: verbosity
// (the collection's own -q decides its output's form), stopping early,
// selecting by cache, keyword, mark or node (a file whose tests the
// command deselects is still a test file), and xdist's workers.
var collectDrop = map[string]bool{
	"-v": true, "-vv": true, "-vvv": true, "--verbose": true, "-q": true, "-qq": true, "-qqq": true, "--quiet": true,
	"-x": true, "--exitfirst": true, "--lf": true, "--last-failed": true, "--ff": true, "--failed-first": true,
	"--nf": true, "--new-first": true, "--sw": true, "--stepwise": true, "--stepwise-skip": true,
	"--co": true, "--collect-only": true,
}

// collectDropValue take a value (the next word unless given with "=").
var collectDropValue = map[string]bool{"-k": true, "-m": true, "-n": true, "--numprocesses": true, "--maxfail": true,
	"--dist": true, "--deselect": true}

// pytestCollectCommand is the command with its runner's arguments kept
// and the collection asked for in its most compact form ("FILE: N" per
// file, whatever verbosity addopts adds: pytest prints counts at any
// verbosity below -1).
func pytestCollectCommand(inv *invocation) []string {
	out := append([]string{}, inv.pre...)
	for i := 0; i < len(inv.args); i++ {
		a := inv.args[i]
		name, _, eq := strings.Cut(a, "=")
		switch {
		case collectDrop[a]:
			continue
		case collectDropValue[name]:
			if !eq {
				i++
			}
			continue
		case len(a) > 2 && (strings.HasPrefix(a, "-k") || strings.HasPrefix(a, "-m") || strings.HasPrefix(a, "-n")) && !strings.HasPrefix(a, "--"):
			continue // -kEXPR
		}
		out = append(out, a)
	}
	return append(out, "--collect-only", "-qqqq")
}

var (
	pytestCountLine  = regexp.MustCompile(`^(\S.*?): \d+$`)
	pytestNodeLine   = regexp.MustCompile(`^([^\s:][^:]*)::`)
	collectErrorLine = regexp.MustCompile(`^(?:_+ )?ERROR(?: collecting)? (\S+?)(?: _+)?$`)
)

// runPytestCollection runs the collection in the sandbox on the checkout
// and returns the workspace-relative test files it named.
func runPytestCollection(ctx context.Context, cfg *Config, inv *invocation) ([]string, error) {
	if cfg.jobs == nil {
		return nil, fmt.Errorf("no sandbox to run pytest's collection in")
	}
	timeout := collectTimeout
	if cfg.Timeout > 0 && cfg.Timeout < timeout {
		timeout = cfg.Timeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &cappedBuffer{max: maxCollectOutput}
	job := Job{Hyp: Hypothesis{Name: collectJobName}, Command: pytestCollectCommand(inv), Output: out}
	o, err := cfg.jobs.Run(cctx, job)
	switch {
	case cctx.Err() != nil:
		return nil, fmt.Errorf("pytest's collection did not end within %s", timeout)
	case err != nil:
		return nil, fmt.Errorf("pytest's collection: %v", err)
	}
	files := pytestCollected(cfg.Workspace, cfg.Subdir, out.String())
	// 0: collected; 2: interrupted by collection errors (the files that
	// failed to import are named, and are tests all the same); 5: none.
	if len(files) == 0 && o.ExitCode != 0 && o.ExitCode != 5 {
		return nil, fmt.Errorf("pytest's collection exited %d and named no test file", o.ExitCode)
	}
	return files, nil
}

// pytestCollected reads the collection's output: "FILE: N", node ids
// "FILE::TEST", and "ERROR collecting FILE". pytest names files relative
// to its rootdir, the command's directory or one above it: each is taken
// where it exists in the checkout, nearest the command's directory first.
func pytestCollected(workspace, subdir, output string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimRight(l, "\r ")
		var f string
		if m := collectErrorLine.FindStringSubmatch(l); m != nil {
			f = m[1]
		} else if m := pytestNodeLine.FindStringSubmatch(l); m != nil {
			f = m[1]
		} else if m := pytestCountLine.FindStringSubmatch(l); m != nil {
			f = m[1]
		} else {
			continue
		}
		if p := inCheckout(workspace, subdir, f); p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// inCheckout is f, relative to subdir or one of its parents, as the
// workspace-relative path of a regular file of the checkout ("" if none).
func inCheckout(workspace, subdir, f string) string {
	if f == "" || strings.ContainsAny(f, "\x00") {
		return ""
	}
	for d := subdir; ; d = path.Dir(d) {
		if d == "." {
			d = ""
		}
		if p, ok := relTo(d, f); ok && p != "" {
			if fi, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() {
				return p
			}
		}
		if d == "" {
			return ""
		}
	}
}

// pytestRoots are the directories and files the command's arguments name
// (workspace-relative), where pytest starts collecting.
func pytestRoots(workspace, subdir string, args []string) (dirs, files []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if pytestValueOpts[a] {
				i++
			}
			continue
		}
		a, _, _ = strings.Cut(a, "::")
		p, ok := relTo(subdir, a)
		if !ok {
			continue
		}
		fi, err := os.Stat(filepath.Join(workspace, filepath.FromSlash(p)))
		switch {
		case err != nil:
		case fi.IsDir():
			dirs = append(dirs, p)
		case fi.Mode().IsRegular():
			files = append(files, p)
		}
	}
	return dirs, files
}

// pytestIni is what pytest's configuration says of collection.
type pytestIni struct {
	dir                    string // the config file's directory (pytest's rootdir), workspace-relative
	pythonFiles, testpaths []string
	addopts                []string
}

// readPytestConfig finds the configuration pytest uses from the command's
// directory up to the workspace root, as pytest does ("Initialization:
// determining rootdir and configfile" in pytest's docs): in each
// directory, pytest.ini, .pytest.ini, pyproject.toml with
// [tool.pytest.ini_options] (or pytest 9's [tool.pytest]), tox.ini with
// [pytest], setup.cfg with [tool:pytest]; the first found wins. -c and
// -o python_files=/testpaths= on the command line win over it.
func readPytestConfig(workspace, subdir string, args []string) pytestIni {
	var ini pytestIni
	read := func(rel string) bool {
		b, err := os.ReadFile(filepath.Join(workspace, filepath.FromSlash(rel)))
		if err != nil {
			return false
		}
		text := string(b)
		base := path.Base(rel)
		var get func(key string) ([]string, bool)
		switch {
		case base == "pyproject.toml":
			table := ""
			for _, t := range []string{"tool.pytest.ini_options", "tool.pytest"} {
				if tomlHasTable(text, t) {
					table = t
					break
				}
			}
			if table == "" {
				return false
			}
			get = func(key string) ([]string, bool) { return tomlStrings(text, table, key) }
		default:
			section := map[string]string{"tox.ini": "pytest", "setup.cfg": "tool:pytest"}[base]
			if section == "" {
				section = "pytest"
			}
			if !iniHasSection(text, section) && base != "pytest.ini" && base != ".pytest.ini" {
				return false
			}
			get = func(key string) ([]string, bool) {
				v, ok := iniValue(text, section, key)
				return shellWords(v), ok
			}
		}
		d := path.Dir(rel)
		if d == "." {
			d = ""
		}
		ini.dir = d
		ini.pythonFiles, _ = get("python_files")
		ini.testpaths, _ = get("testpaths")
		ini.addopts, _ = get("addopts")
		return true
	}
	found := false
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-c" || args[i] == "--config-file" {
			if p, ok := relTo(subdir, args[i+1]); ok {
				found = read(p)
			}
		}
	}
	for d := subdir; !found; d = path.Dir(d) {
		if d == "." {
			d = ""
		}
		for _, n := range []string{"pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"} {
			if read(path.Join(d, n)) {
				found = true
				break
			}
		}
		if d == "" {
			break
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var kv string
		switch {
		case (a == "-o" || a == "--override-ini") && i+1 < len(args):
			kv = args[i+1]
			i++
		case strings.HasPrefix(a, "--override-ini="):
			kv = strings.TrimPrefix(a, "--override-ini=")
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			kv = a[2:]
		default:
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		switch strings.TrimSpace(k) {
		case "python_files":
			ini.pythonFiles = strings.Fields(v)
		case "testpaths":
			ini.testpaths = strings.Fields(v)
		}
	}
	return ini
}

var iniSectionLine = regexp.MustCompile(`^\s*\[([^\]]+)\]\s*$`)

func iniHasSection(text, section string) bool {
	for _, l := range strings.Split(text, "\n") {
		if m := iniSectionLine.FindStringSubmatch(l); m != nil && strings.TrimSpace(m[1]) == section {
			return true
		}
	}
	return false
}

// iniValue is key's value in [section] of an INI file as Python's
// configparser reads it ("key = v" or "key: v", indented lines continue
// it, "#" and ";" lines are comments).
func iniValue(text, section, key string) (string, bool) {
	in, found := false, false
	var val []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		if m := iniSectionLine.FindStringSubmatch(l); m != nil {
			if found {
				break
			}
			in = strings.TrimSpace(m[1]) == section
			continue
		}
		if !in {
			continue
		}
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
			continue
		}
		if found && (l[0] == ' ' || l[0] == '\t') {
			val = append(val, t)
			continue
		}
		if found {
			break
		}
		i := strings.IndexAny(l, "=:")
		if i > 0 && strings.TrimSpace(l[:i]) == key {
			found = true
			if v := strings.TrimSpace(l[i+1:]); v != "" {
				val = append(val, v)
			}
		}
	}
	return strings.Join(val, " "), found
}

var tomlTableLine = regexp.MustCompile(`^\s*\[([^\[\]]+)\]\s*(#.*)?$`)

func tomlHasTable(text, table string) bool {
	for _, l := range strings.Split(text, "\n") {
		if m := tomlTableLine.FindStringSubmatch(l); m != nil && strings.TrimSpace(m[1]) == table {
			return true
		}
	}
	return false
}

var tomlString = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|'([^']*)'`)

// tomlStrings is the strings of key in [table] of a TOML file: an array
// of strings (over several lines too) or one string, split at blanks as
// pytest splits an ini value.
func tomlStrings(text, table, key string) ([]string, bool) {
	lines := strings.Split(text, "\n")
	in := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := tomlTableLine.FindStringSubmatch(l); m != nil {
			in = strings.TrimSpace(m[1]) == table
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !in || !ok || strings.TrimSpace(k) != key {
			continue
		}
		v = strings.TrimSpace(v)
		if !strings.HasPrefix(v, "[") {
			m := tomlString.FindStringSubmatch(v)
			if m == nil {
				return nil, true
			}
			return strings.Fields(m[1] + m[2]), true
		}
		for last := v; !strings.Contains(stripTomlComment(last), "]") && i+1 < len(lines); {
			i++
			last = lines[i]
			v += "\n" + last
		}
		var out []string
		for _, part := range strings.Split(v, "\n") {
			for _, m := range tomlString.FindAllStringSubmatch(stripTomlComment(part), -1) {
				out = append(out, m[1]+m[2])
			}
		}
		return out, true
	}
	return nil, false
}

// stripTomlComment drops a "#" comment that is outside quotes.
func stripTomlComment(l string) string {
	in := byte(0)
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case in != 0 && c == in:
			in = 0
		case in == 0 && (c == '"' || c == '\''):
			in = c
		case in == 0 && c == '#':
			return l[:i]
		}
	}
	return l
}

// cappedBuffer keeps the first max bytes written to it; the sandbox's
// output goroutines may write concurrently.
type cappedBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.b)
}

// pytestHookable reports whether pytest's collection may differ from what
// its configuration says: a conftest.py (its pytest_collect_file and
// pytest_ignore_collect hooks, collect_ignore) in a directory collected
// or above one, a plugin the command or addopts loads (-p), or a
// python_files pattern that names every module (*.py: only those holding
// tests are test files, which only the collection knows).
func pytestHookable(workspace string, roots []string, ini pytestIni, args, patterns []string) bool {
	for i, a := range args {
		if (a == "-p" && i+1 < len(args) && !strings.HasPrefix(args[i+1], "no:")) || (strings.HasPrefix(a, "-p") && len(a) > 2 && !strings.HasPrefix(a, "-pno:") && !strings.HasPrefix(a, "--")) {
			return true
		}
	}
	for _, p := range patterns {
		if strings.TrimLeft(p, "*") == ".py" || p == "*" {
			return true
		}
	}
	if ini.dir != "" {
		roots = append(roots, ini.dir)
	}
	if len(roots) == 0 {
		roots = []string{""}
	}
	found, seen := false, 0
	for _, r := range roots {
		// Above the root, up to the workspace's top.
		for d := r; ; d = path.Dir(d) {
			if d == "." {
				d = ""
			}
			if _, err := os.Stat(filepath.Join(workspace, filepath.FromSlash(d), "conftest.py")); err == nil {
				return true
			}
			if d == "" {
				break
			}
		}
		// Below it.
		filepath.WalkDir(filepath.Join(workspace, filepath.FromSlash(r)), func(p string, e os.DirEntry, err error) error {
			if seen++; seen > maxCanaryWalk {
				found = true // too big to tell: ask pytest
				return filepath.SkipAll
			}
			if err != nil || found {
				return filepath.SkipDir
			}
			if e.IsDir() && p != filepath.Join(workspace, filepath.FromSlash(r)) && (canarySkipDirs[e.Name()] || strings.HasPrefix(e.Name(), ".")) {
				return filepath.SkipDir
			}
			if e.Name() == "conftest.py" {
				found = true
				return filepath.SkipAll
			}
			return nil
		})
		if found {
			return true
		}
	}
	return false
}
