package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// issueRef is a pointer into an issue tracker the repository does not
// hold ("issue 22", "Issue #7", "issue 15 item 2"): a comment says why, or
// cites the doc section that states the rule (docs/report.md, "Tampered").
var issueRef = regexp.MustCompile(`(?i)\bissue\s?#?[0-9]+`)

// TestCodeCitesNoIssueNumbers: no Go file, bench/ script or .ci/ script
// cites an issue by number, as TestDocsCitedByCommentsExist refuses a
// design note the repository does not hold: the reader of the code has the
// docs, not the tracker.
func TestCodeCitesNoIssueNumbers(t *testing.T) {
	self := "test/e2e/docs/docs_issue_test.go"
	n := 0
	for _, root := range []string{".", ".ci"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			rel := filepath.ToSlash(p)
			code := strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, ".sh") ||
				strings.HasPrefix(rel, ".ci/") || strings.HasPrefix(rel, "bench/")
			if !code || rel == self {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			n++
			for _, loc := range issueRef.FindAllIndex(b, -1) {
				line := 1 + strings.Count(string(b[:loc[0]]), "\n")
				t.Errorf("%s:%d cites %q, which the repository does not hold: cite the section of docs/ that states the rule (as docs/report.md, \"Tampered\"), or say why", rel, line, b[loc[0]:loc[1]])
			}
			return nil
		})
	}
	if n < 100 {
		t.Errorf("read %d code files: has the walk gone wrong?", n)
	}
}
