package engine

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// The lower directory of every overlay is the live checkout: a change made
// to it while hypotheses run reaches them half-way (overlayfs promises
// nothing about it). A run records the state of the source files at start
// and end and reports the paths that changed as stale.

type stamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

// SourceState is the stat of every source file of a checkout at one time.
type SourceState struct{ files map[string]stamp }

// maxScan bounds a scan of a checkout without git.
const maxScan = 200000

// skipDirs are build outputs and caches, not sources, when walking a
// checkout that is not a git repository.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "target": true, "__pycache__": true, ".venv": true, "venv": true, "build": true, "dist": true, ".cache": true, ".pytest_cache": true, ".mypy_cache": true}

// ScanSources stats the checkout's source files: git-tracked plus
// untracked-not-ignored files in a git checkout, else every file outside
// the usual build and cache directories.
func ScanSources(workspace string) *SourceState {
	st := &SourceState{files: map[string]stamp{}}
	for _, rel := range sourceList(workspace) {
		fi, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(rel)))
		if err != nil {
			st.files[rel] = stamp{size: -1}
			continue
		}
		s := stamp{size: fi.Size(), mtime: fi.ModTime()}
		if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
			s.ino = sys.Ino
		}
		st.files[rel] = s
	}
	return st
}

func sourceList(workspace string) []string {
	cmd := exec.Command("git", "-C", workspace, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Stderr = nil
	if out, err := cmd.Output(); err == nil {
		var list []string
		for _, p := range bytes.Split(out, []byte{0}) {
			if len(p) > 0 {
				list = append(list, string(p))
			}
		}
		return list
	}
	var list []string
	_ = filepath.WalkDir(workspace, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != workspace && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if len(list) >= maxScan {
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(workspace, p)
		list = append(list, filepath.ToSlash(rel))
		return nil
	})
	return list
}

// Changed rescans the checkout and returns the paths that differ from the
// recorded state: modified, created or removed.
func (s *SourceState) Changed(workspace string) []string {
	now := ScanSources(workspace)
	changed := []string{}
	for p, a := range s.files {
		if b, ok := now.files[p]; !ok || a != b {
			changed = append(changed, p)
		}
	}
	for p := range now.files {
		if _, ok := s.files[p]; !ok {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	return changed
}
