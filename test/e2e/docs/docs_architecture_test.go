package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/sandbox/entry"
)

const modulePath = "github.com/shadow-dev/shadow"

// goList runs `go list -e -f FORMAT ARGS...` here: the facts the
// architecture note is checked against.
func goList(t *testing.T, format string, args ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the packages with: %v", err)
	}
	out, err := exec.Command(gobin, append([]string{"list", "-e", "-f", format}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// relPkg is a package's directory relative to the module root ("." for
// the root).
func relPkg(importPath string) string {
	if importPath == modulePath {
		return "."
	}
	return strings.TrimPrefix(importPath, modulePath+"/")
}

// TestArchitectureNamesEveryPackage: docs/architecture.md's package list
// is the `go list ./...` of the module, no package missing and none named
// that is gone; every hidden entry point (a string this binary is
// re-executed as: the Arg0 / NodeArg constants the dispatch compares
// os.Args with) is in its table; and the import rules it states hold.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	// The package block: the first ``` block after "## Packages", one
	// package a line, its directory first.
	_, block, _ := strings.Cut(text, "## Packages")
	_, block, _ = strings.Cut(block, "```\n")
	block, _, _ = strings.Cut(block, "```")
	named := map[string]bool{}
	for _, line := range strings.Split(block, "\n") {
		if line == "" || line[0] == ' ' {
			continue
		}
		named[strings.Fields(line)[0]] = true
	}

	pkgs := goList(t, "{{.ImportPath}}", "./...")
	have := map[string]bool{}
	for _, p := range pkgs {
		rel := relPkg(p)
		have[rel] = true
		if !named[rel] {
			t.Errorf("docs/architecture.md does not list the package %s (go list ./... has it): add a line saying what it holds", rel)
		}
	}
	var gone []string
	for n := range named {
		if !have[n] {
			gone = append(gone, n)
		}
	}
	sort.Strings(gone)
	if len(gone) > 0 {
		t.Errorf("docs/architecture.md lists packages go list ./... does not have: %v", gone)
	}

	// Hidden entry points.
	argConst := regexp.MustCompile(`(?m)^\s*(?:const\s+)?(\w*Arg0|NodeArg)\s*=\s*"([^"]+)"`)
	found := 0
	filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, m := range argConst.FindAllStringSubmatch(string(b), -1) {
			found++
			if !strings.Contains(text, "`"+m[2]+"`") {
				t.Errorf("docs/architecture.md's entry-point table lacks %q (%s in %s)", m[2], m[1], p)
			}
		}
		return nil
	})
	// And every point of the dispatch table (registered by the packages
	// main imports, so this test binary has the table filled).
	for _, pt := range entry.Points() {
		found++
		name := pt.Arg0
		if name == "" {
			name = pt.Arg1
		}
		if !strings.Contains(text, "`"+name+"`") {
			t.Errorf("docs/architecture.md's entry-point table lacks %q (%s, in internal/sandbox/entry's table)", name, pt.Name)
		}
	}
	// And the other way: every row of the table is an entry point the
	// binary has (a stage that was folded into another must leave it).
	known := map[string]bool{}
	for _, pt := range entry.Points() {
		known[pt.Arg0], known[pt.Arg1] = true, true
	}
	if _, table, ok := strings.Cut(text, "## Hidden entry points"); ok {
		table, _, _ = strings.Cut(table, "\n## ")
		row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
		for _, m := range row.FindAllStringSubmatch(table, -1) {
			if !known[m[1]] {
				t.Errorf("docs/architecture.md's entry-point table names %q, which internal/sandbox/entry's table does not have", m[1])
			}
		}
	}
	if found < 3 {
		t.Errorf("found %d hidden entry points (Arg0/NodeArg constants); the overlay init, the reaper and the node side at least: has the dispatch changed? Update this test and the note", found)
	}

	// The import rules the note states.
	imports := map[string][]string{}
	for _, line := range goList(t, "{{.ImportPath}}|{{join .Imports \",\"}}", "./...") {
		p, imps, _ := strings.Cut(line, "|")
		imports[relPkg(p)] = strings.Split(imps, ",")
	}
	ours := func(imp string) (string, bool) {
		if imp == modulePath || strings.HasPrefix(imp, modulePath+"/") {
			return relPkg(imp), true
		}
		return "", false
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			rel, own := ours(imp)
			switch {
			case pkg == "parse" && own:
				t.Errorf("parse imports %s: it imports nothing of ours", rel)
			case pkg == "engine" && own && (rel == "overlay" || rel == "inplace" || rel == "tui" || strings.HasPrefix(rel, "internal/sandbox") || strings.HasPrefix(rel, "overlay/")):
				t.Errorf("engine imports %s: it knows a Sandbox interface, never a driver or the TUI", rel)
			case (strings.HasPrefix(imp, "github.com/charmbracelet/") || strings.HasPrefix(imp, "github.com/alecthomas/chroma")) && pkg != "tui" && pkg != "internal/cli":
				t.Errorf("%s imports %s: only tui (and the command tree that starts it) imports charm packages and chroma", pkg, imp)
			case pkg == "internal/mcpserver" && own && (rel == "overlay" || rel == "inplace" || strings.HasPrefix(rel, "overlay/") || strings.HasPrefix(rel, "internal/sandbox/")):
				t.Errorf("internal/mcpserver imports %s: it asks internal/sandbox (and the run service), never a sandbox driver", rel)
			case strings.HasPrefix(imp, "github.com/spf13/cobra") && pkg != "internal/cli":
				t.Errorf("%s imports cobra: only internal/cli does", pkg)
			}
		}
	}
	for _, line := range goList(t, "{{.ImportPath}}: {{join .Deps \" \"}}", "./engine/report", "./engine/spec") {
		pkg, deps, _ := strings.Cut(line, ": ")
		for _, d := range strings.Fields(deps) {
			if rel := relPkg(d); rel == "engine" || strings.HasPrefix(rel, "engine/") {
				t.Errorf("%s depends on %s: the contract and the spec import no other engine package", relPkg(pkg), rel)
			}
		}
	}
	// The checkout and the staleness watch stand on the contract, the
	// spec and (the watch) the checkout's originals: never on the core,
	// whose run they serve.
	for _, line := range goList(t, "{{.ImportPath}}: {{join .Deps \" \"}}", "./engine/checkout", "./engine/stale") {
		pkg, deps, _ := strings.Cut(line, ": ")
		for _, d := range strings.Fields(deps) {
			switch rel := relPkg(d); {
			case rel == "engine/report", rel == "engine/spec", rel == "engine/checkout":
			case rel == "engine" || strings.HasPrefix(rel, "engine/"):
				t.Errorf("%s depends on %s: the checkout and the staleness watch import no engine package but engine/report, engine/spec and engine/checkout", relPkg(pkg), rel)
			}
		}
	}
	// The judge says what outcomes mean over plain data: it runs its
	// extra jobs through the core's judge.Jobs, so it never depends on
	// the core it serves nor on a sandbox (its tests need none).
	for _, line := range goList(t, "{{.ImportPath}}: {{join .Deps \" \"}}", "./engine/judge") {
		pkg, deps, _ := strings.Cut(line, ": ")
		for _, d := range strings.Fields(deps) {
			switch rel := relPkg(d); {
			case rel == "engine", rel == "overlay", rel == "inplace", strings.HasPrefix(rel, "overlay/"), strings.HasPrefix(rel, "internal/sandbox"):
				t.Errorf("%s depends on %s: the judge imports neither the core engine nor a sandbox package", relPkg(pkg), rel)
			}
		}
	}
	for _, line := range goList(t, "{{.ImportPath}}: {{join .Deps \" \"}}", "./internal/sandbox/...") {
		pkg, deps, _ := strings.Cut(line, ": ")
		for _, d := range strings.Fields(deps) {
			switch relPkg(d) {
			case "internal/run", "internal/cli", "internal/mcpserver":
				t.Errorf("%s depends on %s: nothing under internal/sandbox may run back up the house", relPkg(pkg), relPkg(d))
			}
		}
	}
}
