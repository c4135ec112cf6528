package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsCitedByCommentsExist: comments cite the repository's own
// contract (docs/*.md), never a DESIGN.md the repository does not hold,
// and every docs/ file a Go file names exists.
func TestDocsCitedByCommentsExist(t *testing.T) {
	design := regexp.MustCompile(`DESIGN(\.md|\s*§)`)
	cited := regexp.MustCompile(`docs/[A-Za-z0-9_./-]+\.(md|json)`)
	n := 0
	filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if loc := design.FindIndex(b); loc != nil && filepath.ToSlash(p) != "test/e2e/docs/docs_cite_test.go" {
			t.Errorf("%s cites %q: cite the repository's docs/ instead", p, b[loc[0]:loc[1]])
		}
		for _, c := range cited.FindAllString(string(b), -1) {
			n++
			if _, err := os.Stat(filepath.FromSlash(c)); err != nil {
				t.Errorf("%s cites %s, which does not exist", p, c)
			}
		}
		return nil
	})
	if n == 0 {
		t.Error("no Go file cites docs/: has the walk gone wrong?")
	}
}
