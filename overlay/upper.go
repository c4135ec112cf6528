package overlay

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/shadow-dev/shadow/engine"
)

// UpperEntry is one entry of a kept upper dir: what the command wrote.
type UpperEntry struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // file, symlink, dir, deleted
	Size int64  `json:"size,omitempty"`
}

// ListUpper lists what a kept upper dir holds beyond the hypothesis's own
// files as they were: what the command created, changed or deleted
// (overlayfs records a deletion as a whiteout, a 0/0 character device;
// see the kernel's Documentation/filesystems/overlayfs.rst). Directories
// are listed only when empty.
func ListUpper(upper string, h engine.Hypothesis) []UpperEntry {
	own := map[string][]byte{}
	for _, f := range h.Files {
		own[f.Path] = f.Content
	}
	deleted := map[string]bool{}
	for _, d := range h.Deletes {
		deleted[d] = true
	}
	var out []UpperEntry
	_ = filepath.WalkDir(upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == upper {
			return nil
		}
		rel, _ := filepath.Rel(upper, p)
		rel = filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		switch {
		case fi.Mode()&fs.ModeCharDevice != 0:
			if isWhiteout(fi) && !deleted[rel] {
				out = append(out, UpperEntry{Path: rel, Kind: "deleted"})
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			out = append(out, UpperEntry{Path: rel, Kind: "symlink"})
		case fi.IsDir():
			if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 {
				out = append(out, UpperEntry{Path: rel, Kind: "dir"})
			}
		case fi.Mode().IsRegular():
			if c, ok := own[rel]; ok {
				if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, c) {
					return nil
				}
			}
			out = append(out, UpperEntry{Path: rel, Kind: "file", Size: fi.Size()})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
