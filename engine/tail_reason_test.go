package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine/judge"
)

// A pytest collection ImportError followed by a flood of captured stderr must
// not leave only warnings in the tail (docs/judge.md: error sections are kept
// even when thousands of warning lines follow them). The tail keeps the error
// section, and the reason comes from it.
func TestTailKeepsCollectionErrorUnderCapturedStderr(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("judge", "testdata", "reason", "pytest_collect_stderr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var tl tail
	tl.write(b)
	out := tl.String()
	if !strings.Contains(out, "E   ImportError: cannot import name 'subtract'") {
		t.Fatalf("the tail lost the collection error:\n%s", out)
	}
	if why := judge.FailureReason(out); !strings.HasPrefix(why, "collection error in tests/test_calc.py: ImportError") {
		t.Errorf("reason %q", why)
	}
}
