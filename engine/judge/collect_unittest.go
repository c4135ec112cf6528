package judge

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// unittest's test files (collect.go): `python -m unittest discover` finds
// the modules under its start directory (-s, default ".") whose file name
// matches its pattern (-p, default "test*.py"), and a command that names
// modules (`python -m unittest tests.check_calc`) runs those (the
// unittest docs, "Test Discovery" and "Command-Line Interface"). Read from
// the command, nothing run: nothing else configures it.

func collectUnittest(workspace, subdir string, inv *invocation) *testCollection {
	c := &testCollection{runner: "unittest", via: "command", files: map[string]bool{}}
	args := inv.args
	discover := len(args) == 0 || args[0] == "discover"
	if len(args) > 0 && args[0] == "discover" {
		args = args[1:]
	}
	start, pattern := ".", "test*.py"
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		val := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "-s" || a == "--start-directory":
			start = val()
		case a == "-p" || a == "--pattern":
			pattern = val()
		case a == "-t" || a == "--top-level-directory" || a == "-k" || a == "--durations":
			val()
		case strings.HasPrefix(a, "--start-directory="):
			start = strings.TrimPrefix(a, "--start-directory=")
		case strings.HasPrefix(a, "--pattern="):
			pattern = strings.TrimPrefix(a, "--pattern=")
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if discover {
		// discover's positional arguments are start, pattern, top.
		if len(pos) > 0 {
			start = pos[0]
		}
		if len(pos) > 1 {
			pattern = pos[1]
		}
		if d, ok := relTo(subdir, start); ok {
			if g := newRunnerGlob(d, pattern); g != nil {
				c.globs = append(c.globs, g)
			}
			c.inPackage = func(p string) bool { return underPackages(workspace, d, p) }
		}
		return c
	}
	for _, m := range pos {
		if f := unittestModuleFile(workspace, subdir, m); f != "" {
			c.files[f] = true
		}
	}
	if len(c.files) == 0 {
		return nil
	}
	return c
}

// unittestModuleFile is the file of a name the command gives unittest: a
// path, or a dotted name whose longest module prefix is a file
// (pkg.mod.Class.test_x: pkg/mod.py).
func unittestModuleFile(workspace, subdir, name string) string {
	exists := func(p string) bool {
		fi, err := os.Stat(filepath.Join(workspace, filepath.FromSlash(p)))
		return err == nil && fi.Mode().IsRegular()
	}
	if strings.HasSuffix(name, ".py") {
		if p, ok := relTo(subdir, name); ok && exists(p) {
			return p
		}
		return ""
	}
	parts := strings.Split(name, ".")
	for n := len(parts); n > 0; n-- {
		if p, ok := relTo(subdir, strings.Join(parts[:n], "/")+".py"); ok && exists(p) {
			return p
		}
	}
	return ""
}

// underPackages reports whether discovery from start reaches p: it
// descends only into directories that are packages, holding __init__.py
// (unittest's docs, "Test Discovery": since Python 3.11 namespace
// packages are not searched), so a testing.py in a plain source directory
// is not a test module though test*.py names it. A directory a candidate
// adds counts as one (its __init__.py is not in the checkout yet).
func underPackages(workspace, start, p string) bool {
	rest := p
	if start != "" {
		r, ok := strings.CutPrefix(p, start+"/")
		if !ok {
			return false
		}
		rest = r
	}
	dir := start
	parts := strings.Split(rest, "/")
	for _, d := range parts[:len(parts)-1] {
		dir = path.Join(dir, d)
		abs := filepath.Join(workspace, filepath.FromSlash(dir))
		if _, err := os.Stat(abs); err != nil {
			return true // new: the candidate's own directory
		}
		if _, err := os.Stat(filepath.Join(abs, "__init__.py")); err != nil {
			return false
		}
	}
	return true
}
