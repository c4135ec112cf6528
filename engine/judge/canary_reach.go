package judge

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// A Go canary only where a candidate's code can reach. Each package's test
// binary is its own process, so a candidate can forge only the verdicts of
// the binaries its code is linked into: the packages it edits and those
// whose tests import them, directly or not. A canary file added to any
// other package changes nothing a cheat could touch, yet makes the go
// command compile that package's X_test and link its test binary again in
// every hypothesis of every run (a hypothesis's build cache writes are
// thrown away with it): on go-cmp, a no-edit hypothesis cost 1.4-1.6x the
// bare command's CPU. In a package the candidate's code reaches, X_test is
// compiled again anyway (its dependency changed), so the canary there is
// almost free. The no-edit baseline gets none.
//
// What is "code" is what the go command builds from: .go files and the
// cgo, assembly and object files beside them (their package), go.mod,
// go.sum, go.work and vendor/ (every package). A file of another kind
// that is not plain data (a script a test may run, say) plants the canary
// everywhere, as before; data (text, JSON, golden files) reaches nothing a
// test binary runs.

// goCanary is the canary of one package directory.
type goCanary struct {
	dir        string // workspace-relative, slash-separated
	importPath string // "" when not known (then always planted)
	file       File
}

// goSourceExt are the files the go command builds into a package
// ("go help packages", "go help c").
var goSourceExt = map[string]bool{".go": true, ".s": true, ".S": true, ".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true,
	".hh": true, ".hpp": true, ".hxx": true, ".m": true, ".f": true, ".F": true, ".for": true, ".f90": true, ".syso": true, ".swig": true, ".swigcxx": true}

// dataExt are files no build or runner executes.
var dataExt = regexp.MustCompile(`(?i)\.(txt|md|rst|json|ya?ml|toml|csv|tsv|xml|html?|css|svg|png|jpe?g|gif|golden|input|output|expected|out|in|dat|lock)$`)

// goReach is the import graph of the checkout's Go packages, reversed:
// a package directory to the directories whose (test) code imports it.
type goReach struct {
	importers map[string][]string // dir -> importing dirs
	complete  bool                // the whole module was read
}

// buildGoReach reads the imports of every .go file under the module that
// holds dir (go/parser, imports only: no code is run).
func buildGoReach(workspace, dir string) *goReach {
	mod, root := goModule(dir)
	r := &goReach{importers: map[string][]string{}}
	if mod == "" {
		return r
	}
	rel := func(d string) string {
		x, err := filepath.Rel(workspace, d)
		if err != nil {
			return ""
		}
		return filepath.ToSlash(x)
	}
	fset := token.NewFileSet()
	seen := 0
	r.complete = true
	var walk func(d string)
	walk = func(d string) {
		ents, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range ents {
			seen++
			if seen > maxCanaryWalk {
				r.complete = false
				return
			}
			n := e.Name()
			if e.IsDir() {
				if canarySkipDirs[n] && n != "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" {
					continue
				}
				if _, err := os.Stat(filepath.Join(d, n, "go.mod")); err == nil {
					continue // another module
				}
				walk(filepath.Join(d, n))
				continue
			}
			if !strings.HasSuffix(n, ".go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(d, n), nil, parser.ImportsOnly)
			if err != nil {
				continue
			}
			for _, im := range f.Imports {
				p := strings.Trim(im.Path.Value, "\"`")
				if p != mod && !strings.HasPrefix(p, mod+"/") {
					continue
				}
				target := rel(filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, mod), "/"))))
				r.importers[target] = append(r.importers[target], rel(d))
			}
		}
	}
	walk(root)
	return r
}

// goModule is the module path and root of the go.mod at or above dir.
func goModule(dir string) (string, string) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return goModuleLine(filepath.Join(d, "go.mod")), d
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// goReached returns the package directories a hypothesis's changes reach,
// or all=true when a change may reach any.
func (r *goReach) reached(h Hypothesis, canary map[string]bool) (dirs map[string]bool, all bool) {
	dirs = map[string]bool{}
	var queue []string
	touch := func(p string) {
		base := path.Base(p)
		switch {
		case canary[p]:
			return
		case base == "go.mod" || base == "go.sum" || base == "go.work" || base == "go.work.sum" || strings.HasPrefix(p, "vendor/") || strings.Contains(p, "/vendor/"):
			all = true
		case goSourceExt[path.Ext(p)]:
			queue = append(queue, path.Dir(p))
		case dataExt.MatchString(p):
		default:
			all = true
		}
	}
	for _, f := range h.Files {
		touch(f.Path)
	}
	for _, d := range h.Deletes {
		touch(d)
	}
	if all || !r.complete {
		return nil, true
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if d == "." {
			d = ""
		}
		if dirs[d] {
			continue
		}
		dirs[d] = true
		queue = append(queue, r.importers[d]...)
	}
	return dirs, false
}
