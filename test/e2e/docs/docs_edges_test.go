package docs

import (
	"flag"
	"os"
	"sort"
	"strings"
	"testing"
)

// updateEdges rewrites docs/architecture.md's edge list from `go list`
// (go test ./test/e2e/docs -run TestArchitectureListsEveryEdge -update-edges)
// instead of failing on it: the list is generated, the test keeps it so.
var updateEdges = flag.Bool("update-edges", false, "rewrite docs/architecture.md's edge list from go list")

// edgeHeading opens the edge list: its first ``` block.
const edgeHeading = "### Every edge"

// importEdges is `go list -f '{{.ImportPath}} {{.Imports}}' ./...`
// restricted to the module's own packages: each package (as relPkg names
// it) and the module packages it imports directly, sorted. Tests' imports
// are not in .Imports: the diagram is of what the binary links.
func importEdges(t *testing.T) map[string][]string {
	edges := map[string][]string{}
	for _, line := range goList(t, "{{.ImportPath}}|{{join .Imports \" \"}}", "./...") {
		p, imps, _ := strings.Cut(line, "|")
		for _, imp := range strings.Fields(imps) {
			if imp == modulePath || strings.HasPrefix(imp, modulePath+"/") {
				edges[relPkg(p)] = append(edges[relPkg(p)], relPkg(imp))
			}
		}
	}
	for _, to := range edges {
		sort.Strings(to)
	}
	return edges
}

// docBlock is the first ``` block after heading in text, and where its
// body starts and ends.
func docBlock(text, heading string) (body string, start, end int, ok bool) {
	h := strings.Index(text, heading)
	if h < 0 {
		return "", 0, 0, false
	}
	open := strings.Index(text[h:], "```\n")
	if open < 0 {
		return "", 0, 0, false
	}
	start = h + open + len("```\n")
	close := strings.Index(text[start:], "```")
	if close < 0 {
		return "", 0, 0, false
	}
	end = start + close
	return text[start:end], start, end, true
}

// formatEdges writes the edge list as the doc holds it: a package a line
// in the package list's column, its imports after it, wrapped under it.
func formatEdges(edges map[string][]string) string {
	var pkgs []string
	for p := range edges {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	const col, width = 31, 100
	var b strings.Builder
	for _, p := range pkgs {
		line := p + strings.Repeat(" ", max(1, col-len(p)))
		first := true
		for i, to := range edges[p] {
			item := to
			if i < len(edges[p])-1 {
				item += ","
			}
			if !first && len(line)+1+len(item) > width {
				b.WriteString(line + "\n")
				line, first = strings.Repeat(" ", col), true
			}
			if !first {
				line += " "
			}
			line += item
			first = false
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// parseEdges reads formatEdges's layout back.
func parseEdges(block string) map[string][]string {
	edges := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(block, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(strings.ReplaceAll(line, ",", " "))
		if line[0] != ' ' {
			cur, f = f[0], f[1:]
			edges[cur] = append(edges[cur], []string{}...)
		}
		edges[cur] = append(edges[cur], f...)
	}
	return edges
}

// TestArchitectureListsEveryEdge: docs/architecture.md's edge list is
// exactly the imports between the module's packages: none missing, none
// listed that no package makes. -update-edges rewrites it.
func TestArchitectureListsEveryEdge(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	block, start, end, ok := docBlock(text, edgeHeading)
	if !ok {
		t.Fatalf("docs/architecture.md has no %q section with a ``` block: the edge list goes there", edgeHeading)
	}
	have := importEdges(t)
	if len(have) < 10 {
		t.Fatalf("go list found imports in only %d packages: has the listing gone wrong?", len(have))
	}
	if *updateEdges {
		text = text[:start] + formatEdges(have) + text[end:]
		if err := os.WriteFile("docs/architecture.md", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	listed := parseEdges(block)
	set := func(m map[string][]string) map[[2]string]bool {
		s := map[[2]string]bool{}
		for from, tos := range m {
			for _, to := range tos {
				s[[2]string{from, to}] = true
			}
		}
		return s
	}
	hs, ls := set(have), set(listed)
	var missing, gone []string
	for e := range hs {
		if !ls[e] {
			missing = append(missing, e[0]+" -> "+e[1])
		}
	}
	for e := range ls {
		if !hs[e] {
			gone = append(gone, e[0]+" -> "+e[1])
		}
	}
	sort.Strings(missing)
	sort.Strings(gone)
	if len(missing) > 0 {
		t.Errorf("docs/architecture.md's edge list misses imports go list has: %v", missing)
	}
	if len(gone) > 0 {
		t.Errorf("docs/architecture.md's edge list names imports no package makes: %v", gone)
	}
	if len(missing)+len(gone) > 0 {
		t.Logf("rewrite it with: go test ./test/e2e/docs -run %s -update-edges", t.Name())
	}
}

// TestArchitectureDiagramDrawsRealEdges: every arrow of the diagram under
// "Imports point one way" is a direct import go list has, so the picture
// shows no dependency that is not there (it need not draw them all: the
// edge list does).
func TestArchitectureDiagramDrawsRealEdges(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	block, _, _, ok := docBlock(string(doc), "## Imports point one way")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Imports point one way" diagram`)
	}
	drawn, err := diagramEdges(block)
	if err != nil {
		t.Fatal(err)
	}
	if len(drawn) < 10 {
		t.Fatalf("read %d arrows from the diagram: has its drawing changed? %v", len(drawn), drawn)
	}
	have := importEdges(t)
	imports := map[[2]string]bool{}
	pkgs := map[string]bool{}
	for _, p := range goList(t, "{{.ImportPath}}", "./...") {
		pkgs[relPkg(p)] = true
	}
	for from, tos := range have {
		for _, to := range tos {
			imports[[2]string{from, to}] = true
		}
	}
	for _, e := range drawn {
		switch {
		case !pkgs[e[0]]:
			t.Errorf("the diagram draws %s, which go list ./... does not have", e[0])
		case !pkgs[e[1]]:
			t.Errorf("the diagram draws %s, which go list ./... does not have", e[1])
		case !imports[e]:
			t.Errorf("the diagram draws %s -> %s, but %s does not import %s", e[0], e[1], e[0], e[1])
		}
	}
}
