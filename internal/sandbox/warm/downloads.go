package warm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// AddHome merges tree, downloads shadow has checked against the
// checkout's lockfiles (internal/sandbox/downloads), into ws's home layer
// of kind: the next generation is the current one with them added, made
// under the update lock with the same crash-safe swap as a baseline's
// (in place when no run holds the current generation). tree is laid out
// as a harvest of kind is: a mirror of absolute paths (HomeOverlay), or
// the caches by their copy-mode names (HomeCopy: tree/npm/…, caches
// "/npm"). It adds no tool to the layer (Meta.Tools): checked downloads
// are no baseline's build, so a layer cold for a command stays cold.
func AddHome(root, ws string, kind HomeKind, tree string, caches []string, runID string) (*Meta, error) {
	kd := homeKey(root, ws, kind)
	if err := os.MkdirAll(kd, 0o700); err != nil {
		return nil, fmt.Errorf("home layer: %w", err)
	}
	release, err := flock(filepath.Join(kd, updateLock), true, false)
	if err != nil {
		return nil, fmt.Errorf("home layer: lock %s: %w", kd, err)
	}
	defer release()
	old, _ := readMeta(kd)
	if old != nil && (old.Format != Format || old.Workspace != ws || old.Updating) {
		old = nil
	}
	var held []string
	for _, c := range caches {
		if _, err := os.Lstat(filepath.Join(tree, filepath.FromSlash(relAbs(c)))); err == nil {
			held = append(held, c)
		}
	}
	if len(held) == 0 {
		return old, nil
	}
	return mergeHome(kd, ws, tree, held, old, runID, "")
}

// HomeDownloadCaches are the caches of a job's environment whose
// downloads a lockfile can vouch for: Go's module cache (GOMODCACHE, else
// the first GOPATH entry's pkg/mod, else ~/go/pkg/mod: go help
// environment) and npm's (npm_config_cache, else ~/.npm: npm help
// config), absolute and resolved as HomeCaches resolves its own ("" when
// the environment names none).
func HomeDownloadCaches(env []string) (gomod, npm string) {
	get := func(k string) string {
		v := ""
		for _, kv := range env {
			if rest, ok := strings.CutPrefix(kv, k+"="); ok {
				v = rest
			}
		}
		return v
	}
	abs := func(p string) string {
		if p == "" || !filepath.IsAbs(p) {
			return ""
		}
		return resolvePrefix(filepath.Clean(p))
	}
	home := get("HOME")
	if gomod = abs(get("GOMODCACHE")); gomod == "" {
		gopath, _, _ := strings.Cut(get("GOPATH"), ":")
		if abs(gopath) == "" && abs(home) != "" {
			gopath = filepath.Join(home, "go")
		}
		if abs(gopath) != "" {
			gomod = abs(filepath.Join(gopath, "pkg", "mod"))
		}
	}
	if npm = abs(get("npm_config_cache")); npm == "" {
		npm = abs(get("NPM_CONFIG_CACHE"))
	}
	if npm == "" && abs(home) != "" {
		npm = abs(filepath.Join(home, ".npm"))
	}
	return gomod, npm
}

// resolvePrefix resolves the symlinks of p's longest existing ancestor (a
// cache not made yet lies below one that may be a link: a $HOME on
// another disk), so it compares with HomeCaches' resolved paths.
func resolvePrefix(p string) string {
	rest := ""
	for cur := p; ; cur = filepath.Dir(cur) {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		if cur == filepath.Dir(cur) {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}
