// Package e2e is the harness of shadow's end-to-end tests, which live
// beside it by capability (test/e2e/run, sandbox, copy, inplace, judge,
// remote, shard, mcp, tui, docs): each test binary doubles as the shadow
// binary (Main), and Env runs it on a workspace of the test's own.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/cli"
	"github.com/shadow-dev/shadow/internal/sandbox"
	_ "github.com/shadow-dev/shadow/internal/sandbox/entry"
	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
	"github.com/shadow-dev/shadow/overlay"
)

// Version is what the test binary says it is when it runs as shadow.
const Version = "0.1.0-dev"

// Main is each e2e package's TestMain. The test binary doubles as the
// shadow binary: with SHADOW_E2E_MAIN=1 it runs the command line as main
// does (cli.Main), and as argv[0] shadow-sandbox-init, shadow-reaper or
// with __shadow-node it is that hidden entry point (docs/architecture.md,
// "Hidden entry points"). The tests then run from the module's root, so
// the paths they name (testdata/..., docs/..., go list ./...) are the
// repository's as they were when the tests lived there; where no module
// root is above (a binary copied out of the clone, as .ci/run's
// unprivileged pass runs them, with the fixtures beside it) they stay
// where they were started.
func Main(m *testing.M) {
	maybeSeccomp() // shadow under Docker's namespace rules (seccomp.go)
	overlay.MaybeInit()
	reaper.MaybeHelper()
	sandbox.MaybeNode()
	if os.Getenv("SHADOW_E2E_MAIN") == "1" {
		os.Exit(cli.Main(os.Args[1:], Version))
	}
	if root := moduleRoot(); root != "" {
		if err := os.Chdir(root); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// moduleRoot is the nearest directory above the current one whose go.mod
// is this module's, or "".
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimSpace(first) == "module github.com/shadow-dev/shadow" {
				return dir
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}
