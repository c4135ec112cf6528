//go:build linux || darwin

package clone

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
// sources, which a copy at another path misses.
func (c *copier) coldCaches(env []string) []string {
	var out []string
	has := func(rel string) bool {
		_, err := os.Lstat(c.dstPath(rel))
		return err == nil
	}
	if has("Cargo.toml") {
		if has("target") {
			out = append(out, "cargo's fingerprints in target/ (keyed by the package's path) miss for the workspace's crates")
		} else {
			out = append(out, "cargo builds from scratch (no target/)")
		}
	}
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
