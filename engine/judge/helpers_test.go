package judge

import (
	"testing"

	"github.com/shadow-dev/shadow/engine/spec"
	"github.com/shadow-dev/shadow/engine/spec/spectest"
)

// makeTree and load are engine/spec/spectest's, under the names the tests
// here use.

func makeTree(t *testing.T, tree map[string]string) string {
	t.Helper()
	return spectest.MakeTree(t, tree)
}

func load(t *testing.T, doc, ws string, bases spec.BaseResolver) ([]Hypothesis, error) {
	t.Helper()
	return spectest.Load(t, doc, ws, bases)
}
