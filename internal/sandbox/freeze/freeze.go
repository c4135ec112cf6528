// Package freeze is --freeze's copy: the workspace's source files copied
// once at the start of a run, a read-only layer every hypothesis then runs
// on (overlay and copy modes stack it above the workspace; remote syncs
// every mirror from it), so edits made to the checkout during the run
// reach none of them. Files are copied through fsutil.CopyFile, the same
// FICLONE path copy mode's copies take.
package freeze

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// Stats says what Freeze copied.
type Stats struct {
	Files, Links int
	Bytes        int64
	Cloned       int // files copied as reflinks (no data copied)
}

// Freeze copies the listed workspace-relative source paths (regular files
// and symlinks; anything else is skipped) into dst, keeping modes, owners
// (where permitted) and nanosecond mtimes of files and of their
// directories, so tools that compare mtimes (cargo's fingerprints, make)
// see the same tree. Files are reflinked where the filesystem can, else
// copied (copy_file_range). It returns the paths copied.
func Freeze(workspace, dst string, paths []string) (map[string]bool, Stats, error) {
	var st Stats
	copied := map[string]bool{}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return nil, st, err
	}
	dirs := map[string]bool{}
	root := os.Geteuid() == 0
	var noClone atomic.Bool // the filesystem refused a clone: copy the rest
	for _, rel := range paths {
		src := filepath.Join(workspace, filepath.FromSlash(rel))
		fi, err := os.Lstat(src)
		if err != nil {
			continue // gone since it was listed: the workspace has none either
		}
		if !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		if err := mkParents(workspace, dst, rel, dirs); err != nil {
			return nil, st, err
		}
		to := filepath.Join(dst, filepath.FromSlash(rel))
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				continue
			}
			if err := os.Symlink(target, to); err != nil {
				return nil, st, fmt.Errorf("freeze %s: %w", rel, err)
			}
			st.Links++
		} else {
			cloned, err := fsutil.CopyFile(src, to, fi, &noClone)
			if err != nil {
				return nil, st, fmt.Errorf("freeze %s: %w", rel, err)
			}
			st.Files++
			st.Bytes += fi.Size()
			if cloned {
				st.Cloned++
			}
		}
		fsutil.KeepAttrs(to, fi, root)
		copied[rel] = true
	}
	// Directory mtimes last, deepest first: creating entries changed them.
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool { return strings.Count(list[i], "/") > strings.Count(list[j], "/") })
	for _, d := range list {
		if fi, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(d))); err == nil {
			fsutil.KeepAttrs(filepath.Join(dst, filepath.FromSlash(d)), fi, root)
		}
	}
	if fi, err := os.Stat(workspace); err == nil {
		fsutil.KeepAttrs(dst, fi, root)
	}
	return copied, st, nil
}

// mkParents creates rel's parent directories in dst with the workspace's
// modes (write permission for us added until the copy is done).
func mkParents(workspace, dst, rel string, dirs map[string]bool) error {
	parts := strings.Split(rel, "/")
	cur := ""
	for _, p := range parts[:len(parts)-1] {
		if cur == "" {
			cur = p
		} else {
			cur += "/" + p
		}
		if dirs[cur] {
			continue
		}
		mode := os.FileMode(0o755)
		if fi, err := os.Stat(filepath.Join(workspace, filepath.FromSlash(cur))); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := os.Mkdir(filepath.Join(dst, filepath.FromSlash(cur)), mode|0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		dirs[cur] = true
	}
	return nil
}

// FrozenDir is where run id's frozen sources go under the sandbox base: the
// recorder's pid is in the name so CleanFrozen can tell a crashed run's
// copy from a live one.
func FrozenDir(base, runID string) string {
	return filepath.Join(base, "frozen-"+runID+"-"+strconv.Itoa(os.Getpid()))
}

// CleanFrozen removes frozen copies under base whose recorder is gone.
func CleanFrozen(base string) int {
	ents, _ := os.ReadDir(base)
	n := 0
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "frozen-") {
			continue
		}
		i := strings.LastIndexByte(name, '-')
		pid, err := strconv.Atoi(name[i+1:])
		if err != nil {
			continue
		}
		if alive(pid) {
			continue
		}
		if fsutil.RemoveTree(filepath.Join(base, name)) == nil {
			n++
		}
	}
	return n
}

// RemoveFrozen removes a frozen copy.
func RemoveFrozen(dir string) error { return fsutil.RemoveTree(dir) }
