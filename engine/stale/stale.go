package stale

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// The lower directory of every overlay is the live checkout: a change made
// to it while hypotheses run reaches them half-way (overlayfs promises
// nothing about it). A run records the state of the source files at start
// and end and reports the paths that changed as stale.
//
// A stat change alone (touch, a rewrite with the same bytes, an editor's
// save-by-rename, git checkout of the same content) is not a change where
// the content can be compared cheaply: for a file under hashLimit whose
// start content is known, the end content is hashed and compared. The
// start content's hash comes for free from git's index for tracked files
// git does not report modified; other files under hashLimit are hashed at
// start, up to hashBudget bytes in all.

type stamp struct {
	size  int64
	mtime time.Time
	ino   uint64
	mode  fs.FileMode
}

// SourceState is the state of every source file of a checkout at one time.
type SourceState struct {
	files   map[string]stamp
	hashes  map[string]string // git blob id of the content at start, where known
	sha256  bool              // the repository names objects with SHA-256
	exclude []string          // absolute directories left out of the scan
}

const (
	// maxScan bounds a scan of a checkout without git.
	maxScan = 200000
	// hashLimit: files up to this size are compared by content when their
	// stat changed.
	hashLimit = 1 << 20
	// hashBudget bounds the bytes read at start to hash files git cannot
	// vouch for (untracked, modified, or no git).
	hashBudget = 32 << 20
)

// skipDirs are build outputs and caches, not sources, when walking a
// checkout that is not a git repository.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "target": true, "__pycache__": true, ".venv": true, "venv": true, "build": true, "dist": true, ".cache": true, ".pytest_cache": true, ".mypy_cache": true}

// ScanSources records the checkout's source files: git-tracked plus
// untracked-not-ignored files in a git checkout, else every file outside
// the usual build and cache directories.
func ScanSources(workspace string, exclude ...string) *SourceState {
	st := &SourceState{hashes: map[string]string{}, exclude: exclude}
	list, index, modified := gitSources(workspace, true)
	if list == nil {
		list = walkSources(workspace)
	}
	list = withoutExcluded(workspace, list, exclude)
	for _, id := range index {
		st.sha256 = len(id) == 64
		break
	}
	// git first, stat second: a change between the two shows as a stat
	// change at the end, compared with the index's content.
	st.files = statAll(workspace, list)
	budget := int64(hashBudget)
	for _, rel := range list {
		s := st.files[rel]
		if !s.mode.IsRegular() || s.size > hashLimit {
			continue
		}
		if id, ok := index[rel]; ok && !modified[rel] {
			st.hashes[rel] = id
			continue
		}
		if budget < s.size {
			continue
		}
		budget -= s.size
		if id, ok := st.blobID(workspace, rel, s); ok {
			st.hashes[rel] = id
		}
	}
	return st
}

// SourceFiles lists the checkout's source files as ScanSources sees them,
// leaving out anything under the exclude directories (absolute paths):
// shadow's own state dir when it lies inside the checkout (a workspace at
// $HOME), whose records change during every run.
func SourceFiles(workspace string, exclude ...string) []string {
	list, _, _ := gitSources(workspace, false)
	if list == nil {
		list = walkSources(workspace)
	}
	return withoutExcluded(workspace, list, exclude)
}

func withoutExcluded(workspace string, list, exclude []string) []string {
	var prefixes []string
	for _, e := range exclude {
		if rel, err := filepath.Rel(workspace, e); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			prefixes = append(prefixes, filepath.ToSlash(rel)+"/")
		}
	}
	if len(prefixes) == 0 {
		return list
	}
	kept := list[:0:0]
	for _, p := range list {
		skip := false
		for _, pre := range prefixes {
			if strings.HasPrefix(p, pre) {
				skip = true
				break
			}
		}
		if !skip {
			kept = append(kept, p)
		}
	}
	return kept
}

func statAll(workspace string, list []string) map[string]stamp {
	// lstat(2) is the whole cost on a large checkout (100k files): spread
	// it over a few goroutines, as git's preload-index does.
	stamps := make([]stamp, len(list))
	workers := min(8, max(1, len(list)/2048))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(list); i += workers {
				fi, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(list[i])))
				if err != nil {
					stamps[i] = stamp{size: -1}
					continue
				}
				s := stamp{size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
				s.ino = inode(fi)
				stamps[i] = s
			}
		}(w)
	}
	wg.Wait()
	files := make(map[string]stamp, len(list))
	for i, rel := range list {
		files[rel] = stamps[i]
	}
	return files
}

// gitSources lists tracked and untracked-not-ignored files, the index's
// blob id of each tracked stage-0 regular file, and the tracked files git
// finds modified (by content) in the checkout. list is nil outside git.
//
// withIndex false skips the index ids and the modified check (a second
// pass of git over every file's stat): the end-of-run rescan only needs
// the list.
func gitSources(workspace string, withIndex bool) (list []string, index map[string]string, modified map[string]bool) {
	if !withIndex {
		out, err := GitZ(workspace, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
		if err != nil {
			return nil, nil, nil
		}
		// An unmerged path is listed once per stage.
		list = make([]string, 0, len(out))
		for i, p := range out {
			if i == 0 || p != out[i-1] {
				list = append(list, p)
			}
		}
		return list, nil, nil
	}
	out, err := GitZ(workspace, "ls-files", "-z", "-s", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, nil, nil
	}
	index = map[string]string{}
	seen := map[string]bool{}
	for _, rec := range out {
		// Tracked: "MODE ID STAGE\tPATH"; untracked: "PATH".
		p := rec
		if meta, path, ok := strings.Cut(rec, "\t"); ok && strings.Count(meta, " ") == 2 {
			p = path
			f := strings.Fields(meta)
			if f[2] == "0" && (f[0] == "100644" || f[0] == "100755") {
				index[p] = f[1]
			}
		}
		if !seen[p] {
			seen[p] = true
			list = append(list, p)
		}
	}
	modified = map[string]bool{}
	if mods, err := GitZ(workspace, "ls-files", "-z", "-m"); err == nil {
		for _, p := range mods {
			modified[p] = true
		}
	} else {
		index = map[string]string{} // cannot vouch for any
	}
	if list == nil {
		list = []string{}
	}
	return list, index, modified
}

func GitZ(dir string, args ...string) ([]string, error) {
	cmd := fsutil.Command("git", append(append(SafeGitConfig(), "-C", dir), args...)...)
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var recs []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			recs = append(recs, string(p))
		}
	}
	return recs, nil
}

func walkSources(workspace string) []string {
	list := []string{}
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

// blobID is git's object id of a file's content ("blob N\0" + bytes), in
// the repository's hash; ok is false when the file is not what s stats (it
// changed while read) or unreadable.
func (st *SourceState) blobID(workspace, rel string, s stamp) (string, bool) {
	f, err := os.Open(filepath.Join(workspace, filepath.FromSlash(rel)))
	if err != nil {
		return "", false
	}
	defer f.Close()
	var h hash.Hash
	if st.sha256 {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	fmt.Fprintf(h, "blob %d\x00", s.size)
	n, err := io.Copy(h, io.LimitReader(f, hashLimit+1))
	if err != nil || n != s.size {
		return "", false
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != s.size || !fi.ModTime().Equal(s.mtime) {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// Changed rescans the checkout and returns the paths that differ from the
// recorded state: modified, created or removed. A file whose stat changed
// but whose content is known to be the same is not listed.
func (s *SourceState) Changed(workspace string) []string {
	list := SourceFiles(workspace, s.exclude...)
	now := statAll(workspace, list)
	changed := []string{}
	for p, a := range s.files {
		b, ok := now[p]
		if ok && a == b {
			continue
		}
		if ok && a.size == b.size && a.mode == b.mode && b.mode.IsRegular() && s.hashes[p] != "" {
			if id, ok := s.blobID(workspace, p, b); ok && id == s.hashes[p] {
				continue
			}
		}
		changed = append(changed, p)
	}
	for p := range now {
		if _, ok := s.files[p]; !ok {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	return changed
}

// Has reports whether rel was a source file at the scan.
func (s *SourceState) Has(rel string) bool {
	_, ok := s.files[rel]
	return ok
}
