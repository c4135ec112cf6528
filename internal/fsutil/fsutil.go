// Package fsutil holds the two filesystem helpers several of shadow's
// packages need alike: removing a tree a command may have made unwritable,
// and resolving a command name the way a shell would.
package fsutil

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RemoveTree removes dir and everything below it, also directories left
// without write or search permission (overlayfs leaves work/work as mode
// 000; Go's module cache and many build tools make read-only trees).
// Whiteouts are character devices owned by the caller and unlink like
// files.
func RemoveTree(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	// WalkDir calls fn on a directory before reading it, so making it
	// accessible there lets the walk descend into it.
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// LookPath resolves argv0 like a shell: a name with a slash is relative to
// dir (the command's working directory), others are searched in pathEnv,
// whose relative entries are relative to dir too. It differs from
// exec.LookPath in resolving against dir rather than the caller's own
// working directory, which in a sandbox is not the command's.
func LookPath(argv0, pathEnv, dir string) (string, error) {
	if strings.Contains(argv0, "/") {
		if !filepath.IsAbs(argv0) {
			argv0 = filepath.Join(dir, argv0)
		}
		return argv0, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, argv0)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: command not found in PATH", argv0)
}
