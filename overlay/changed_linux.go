package overlay

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
)

// changedPaths lists what the command itself created, changed or deleted,
// from the upper dir (workspace-relative, '/'-separated, sorted):
//   - a file, symlink or other non-directory in upper, unless it is one of
//     the hypothesis's own files with the content and mode shadow wrote;
//   - a whiteout (a 0/0 character device, overlayfs(5)) below none of the
//     hypothesis's deletions: a deletion;
//   - a directory that is opaque (deleted and made again: its lower
//     contents are gone) or new (not in the workspace) and not a parent
//     shadow made for the hypothesis's files.
//
// It never returns nil: an empty list means the command changed nothing.
func changedPaths(upper, workspace string, hyp engine.Hypothesis) []string {
	own := map[string]engine.File{}
	parents := map[string]bool{}
	for _, f := range hyp.Files {
		own[f.Path] = f
		for d := filepath.ToSlash(filepath.Dir(filepath.FromSlash(f.Path))); d != "." && d != "/"; d = filepath.ToSlash(filepath.Dir(filepath.FromSlash(d))) {
			parents[d] = true
		}
	}
	deleted := func(rel string) bool {
		for _, d := range hyp.Deletes {
			if rel == d || strings.HasPrefix(rel, d+"/") {
				return true
			}
		}
		return false
	}
	out := []string{}
	_ = filepath.WalkDir(upper, func(p string, de fs.DirEntry, err error) error {
		if err != nil || p == upper {
			return nil
		}
		relOS, _ := filepath.Rel(upper, p)
		rel := filepath.ToSlash(relOS)
		if de.IsDir() {
			opaque := isOpaque(p)
			_, inLower := os.Lstat(filepath.Join(workspace, relOS))
			if (opaque || inLower != nil) && !parents[rel] && !deleted(rel) {
				out = append(out, rel)
			}
			return nil
		}
		fi, err := de.Info()
		if err != nil {
			return nil
		}
		if isWhiteout(fi) {
			if !deleted(rel) {
				out = append(out, rel)
			}
			return nil
		}
		if f, ok := own[rel]; ok && fi.Mode().IsRegular() && fi.Mode().Perm() == f.Mode.Perm() && fi.Size() == int64(len(f.Content)) {
			if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, f.Content) {
				return nil
			}
		}
		out = append(out, rel)
		return nil
	})
	sort.Strings(out)
	return out
}

// isWhiteout: overlayfs records a deletion as a character device 0/0.
func isWhiteout(fi fs.FileInfo) bool {
	if fi.Mode()&fs.ModeCharDevice == 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Rdev == 0
}

// isOpaque: an opaque directory hides the lower one's entries; the marker
// is trusted.overlay.opaque, or user.overlay.opaque with userxattr.
func isOpaque(p string) bool {
	buf := make([]byte, 4)
	for _, name := range []string{"trusted.overlay.opaque", "user.overlay.opaque"} {
		if n, err := unix.Lgetxattr(p, name, buf); err == nil && n > 0 && buf[0] == 'y' {
			return true
		}
	}
	return false
}
