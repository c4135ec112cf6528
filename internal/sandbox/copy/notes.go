//go:build linux || darwin

package copy

import (
	"fmt"
	"os"
	"strings"

	"github.com/shadow-dev/shadow/engine"
)

// notes are what the user must hear about this copy: files that lead back
// to the checkout, what was left out, and caches that are cold because the
// copy's path differs from the checkout's.
func (c *copier) notes(job engine.Job) []string {
	out := c.backRefs()
	if len(c.st.Unreadable) > 0 {
		out = append(out, fmt.Sprintf("copy mode: %d path(s) you cannot read were left out of the copy: %s", len(c.st.Unreadable), list(c.st.Unreadable)))
	}
	if len(c.st.Skipped) > 0 {
		out = append(out, fmt.Sprintf("copy mode: --copy-skip left out %s", list(c.st.Skipped)))
	}
	if cold := c.coldCaches(job.Env); len(cold) > 0 {
		out = append(out, "copy mode runs at another path, so "+strings.Join(cold, "; ")+" (the first build there recompiles the workspace's own code)")
	}
	return out
}

// coldCaches names the build caches keyed by the absolute path of the
// sources, which a copy at another path misses (measured: `go test` in a
// copy of a module whose results are cached runs them again).
func (c *copier) coldCaches(env []string) []string {
	var out []string
	has := func(rel string) bool {
		_, err := os.Lstat(c.dstPath(rel))
		return err == nil
	}
	// Not cargo: its fingerprints of the workspace's own crates are
	// relative to the workspace root and the copy keeps mtimes, so a
	// copied target/ stays fresh at the new path (bench/copy.sh: an edit's
	// rebuild 0.7 s with target/ copied, 45 s without).
	if has("go.mod") || has("go.work") {
		out = append(out, "Go's build and test caches (keyed by package directory unless -trimpath) miss for the module's packages")
	}
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); (k == "RUSTC_WRAPPER" || k == "CC" || k == "CXX") && strings.Contains(v, "sccache") {
			out = append(out, "sccache (keyed by the compiler's working directory and arguments) misses")
			break
		}
	}
	return out
}
