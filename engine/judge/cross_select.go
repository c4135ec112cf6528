package judge

import (
	"path"
	"regexp"
	"sort"
	"strings"
)

// Selecting the proposed tests on the run's own command, so a cross-phase
// job runs them and not the whole suite: pytest gets their node ids, go
// test a -run pattern and their packages, vitest and jest their files.
// Where the command wraps the runner (make, npm test, sh -c, tox) nothing
// is selected: the whole command runs and the proposed tests' outcomes are
// read from its output by name.

// launchers may come before a runner's name in a command (python -m
// pytest, npx vitest, uv run pytest).
var launchers = map[string]bool{"-m": true, "run": true, "exec": true, "npx": true, "pnpm": true, "yarn": true,
	"bunx": true, "uv": true, "poetry": true, "pipenv": true, "hatch": true, "pdm": true, "--": true, "node": true}

// runnerAt finds the runner in argv: its index and name ("pytest", "go",
// "vitest", "jest"), or -1.
func runnerAt(argv []string) (int, string) {
	for i, a := range argv {
		b := path.Base(a)
		switch {
		case b == "pytest" || b == "py.test":
			return i, "pytest"
		case b == "go" && i+1 < len(argv) && argv[i+1] == "test":
			return i + 1, "go"
		case b == "vitest" || b == "vitest.mjs" && i > 0:
			return i, "vitest"
		case b == "jest" || b == "jest.js" && i > 0:
			return i, "jest"
		}
		// node takes options before the script (--max-old-space-size=...).
		if i > 0 && !launchers[a] && !(strings.HasPrefix(a, "--") && path.Base(argv[0]) == "node") || i == 0 && !strings.HasPrefix(b, "python") && !launchers[b] {
			return -1, ""
		}
	}
	return -1, ""
}

// pytestValueOpts and goValueOpts take their value as the next argument.
var pytestValueOpts = map[string]bool{"-k": true, "-m": true, "-p": true, "-c": true, "-o": true, "-W": true,
	"--deselect": true, "--ignore": true, "--ignore-glob": true, "--rootdir": true, "--confcutdir": true,
	"--basetemp": true, "-n": true, "--maxfail": true, "--tb": true, "--junitxml": true, "--junit-xml": true,
	"--durations": true, "-r": true, "--cov": true, "--import-mode": true, "--log-level": true, "--capture": true,
	"--dist": true, "--timeout": true, "--override-ini": true, "--pyargs": false}

var goValueOpts = map[string]bool{"-run": true, "-skip": true, "-count": true, "-timeout": true, "-tags": true, "-p": true,
	"-o": true, "-bench": true, "-benchtime": true, "-cpu": true, "-parallel": true, "-coverprofile": true,
	"-covermode": true, "-coverpkg": true, "-exec": true, "-ldflags": true, "-gcflags": true, "-asmflags": true,
	"-mod": true, "-modfile": true, "-vet": true, "-shuffle": true, "-list": true, "-fuzz": true, "-fuzztime": true,
	"-blockprofile": true, "-cpuprofile": true, "-memprofile": true, "-mutexprofile": true, "-outputdir": true,
	"-trace": true, "-C": true}

// selectTests returns a command that runs only tests (all of one runner's
// language), and whether it could select; cwd is the command's directory,
// workspace-relative ("" for the root).
func selectTests(argv []string, tests []proposedTest, cwd string) ([]string, bool) {
	at, runner := runnerAt(argv)
	if at < 0 {
		return argv, false
	}
	rel := func(p string) (string, bool) {
		if cwd == "" {
			return p, true
		}
		r, ok := strings.CutPrefix(p, cwd+"/")
		return r, ok
	}
	head := append([]string{}, argv[:at+1]...)
	args := argv[at+1:]
	switch runner {
	case "pytest":
		var ids []string
		for _, t := range tests {
			if t.lang != "py" {
				continue
			}
			r, ok := rel(t.path)
			if !ok {
				return argv, false
			}
			ids = append(ids, r+"::"+t.name)
		}
		if len(ids) == 0 {
			return nil, true
		}
		kept := dropArgs(args, pytestValueOpts, map[string]bool{"-k": true, "--maxfail": true}, map[string]bool{"-x": true, "--exitfirst": true, "--lf": true, "--last-failed": true, "--ff": true, "--sw": true, "--stepwise": true})
		// -rA names the passing tests in the summary; a proposal whose file
		// does not import on a target must not stop the others'.
		out := append(append(head, kept...), "-rA", "--continue-on-collection-errors")
		return append(out, sortedUnique(ids)...), true
	case "go":
		var names []string
		pkgs := map[string]bool{}
		for _, t := range tests {
			if t.lang != "go" {
				continue
			}
			r, ok := rel(path.Dir(t.path))
			if !ok {
				return argv, false
			}
			names = append(names, regexp.QuoteMeta(t.name))
			if r == "." {
				pkgs["."] = true
			} else {
				pkgs["./"+strings.TrimPrefix(r, "./")] = true
			}
		}
		if len(names) == 0 {
			return nil, true
		}
		kept := dropArgs(args, goValueOpts, map[string]bool{"-run": true}, map[string]bool{"-failfast": true})
		verbose := false
		for _, a := range kept {
			if a == "-v" || a == "-json" || strings.HasPrefix(a, "-v=") || strings.HasPrefix(a, "-json=") {
				verbose = true
			}
		}
		out := append(head, kept...)
		if !verbose {
			out = append(out, "-v") // names the passing tests
		}
		out = append(out, "-run", "^("+strings.Join(sortedUnique(names), "|")+")$")
		return append(out, sortedKeys(pkgs)...), true
	case "vitest", "jest":
		var files []string
		for _, t := range tests {
			if t.lang != "js" {
				continue
			}
			r, ok := rel(t.path)
			if !ok {
				return argv, false
			}
			files = append(files, r)
		}
		if len(files) == 0 {
			return nil, true
		}
		kept := dropArgs(args, map[string]bool{"-t": true, "--testNamePattern": true, "--reporter": true, "-c": true, "--config": true, "--project": true, "--root": true, "--dir": true}, map[string]bool{"-t": true, "--testNamePattern": true}, map[string]bool{"--bail": true})
		reporter := false
		for _, a := range kept {
			if strings.HasPrefix(a, "--reporter") || a == "--verbose" || strings.HasPrefix(a, "--json") {
				reporter = true
			}
		}
		out := append(head, kept...)
		if !reporter {
			if runner == "vitest" {
				out = append(out, "--reporter=verbose")
			} else {
				out = append(out, "--verbose")
			}
		}
		return append(out, sortedUnique(files)...), true
	}
	return argv, false
}

// dropArgs removes from a runner's arguments its positional ones (paths,
// package patterns, file filters: the selection replaces them), the
// options in drop with their values, and the flags in flags. valueOpts take
// their value as the next argument. A runner's subcommand words stay.
func dropArgs(args []string, valueOpts, drop, flags map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case flags[a]:
		case drop[name]:
			if !hasValue && valueOpts[name] {
				i++
			}
		case strings.HasPrefix(a, "-"):
			out = append(out, a)
			if !hasValue && valueOpts[name] && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
		case a == "run" || a == "watch" || a == "related" || a == "dev":
			out = append(out, a)
		}
	}
	return out
}

// byRunner keeps the tests a runner can select or name.
func langsOf(tests []proposedTest) []string {
	seen := map[string]bool{}
	for _, t := range tests {
		seen[t.lang] = true
	}
	out := sortedKeys(seen)
	sort.Strings(out)
	return out
}
