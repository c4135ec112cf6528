package scan

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// corpusTestFile: the files a runner would take for tests or their
// fixtures, which the scan never sees (they are the judge's).
var corpusTestFile = regexp.MustCompile(`(^|/)(tests?|test\w+|__tests__|testdata|testing|fixtures?|benchmarks?|docs?|examples?|perf|vendor|node_modules)/|_test\.go$|(^|/)test_[^/]*\.py$|_test\.py$|(^|/)conftest\.py$|\.(test|spec)\.[cm]?[jt]sx?$|\.min\.js$`)

// scanTree scans every code file under root as if a candidate had added
// it, and returns the hits.
func scanTree(t testing.TB, root string) (hits []Hit, files, bytes int) {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || LangOf(rel) == "" || corpusTestFile.MatchString(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		bytes += len(b)
		hits = append(hits, Scan(File{Path: rel, Content: b})...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits, files, bytes
}

// Real projects' whole source trees, where SHADOW_SCAN_CORPUS names a
// directory of checkouts (one per subdirectory, named owner+repo): every
// hit is printed, and no introspection class may hit but where
// testdata/corpus_expected.txt says why it does (the table's rules have
// their own recorded sample in testdata/legit, and the excerpts in
// testdata/legit cover these classes without the corpus).
func TestCorpusHasNoIntrospectionHits(t *testing.T) {
	dir := os.Getenv("SHADOW_SCAN_CORPUS")
	if dir == "" {
		t.Skip("SHADOW_SCAN_CORPUS is not set (a directory of real projects' checkouts)")
	}
	exp, err := os.ReadFile("testdata/corpus_expected.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, l := range strings.Split(string(exp), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			want[l] = true
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		hits, files, _ := scanTree(t, filepath.Join(dir, e.Name()))
		t.Logf("%s: %d files, %d hits", e.Name(), files, len(hits))
		for _, h := range hits {
			key := fmt.Sprintf("%s %s:%d %s", e.Name(), h.Path, h.Line, h.Rule)
			if isClass(h.Rule) && !want[key] {
				t.Errorf("%s: %s", e.Name(), h)
			} else {
				t.Logf("%s: %s", e.Name(), h)
			}
		}
	}
}

func isClass(rule string) bool {
	if rule == RuleUnreadable {
		return true
	}
	for _, c := range Classes {
		if c == rule {
			return true
		}
	}
	return false
}
