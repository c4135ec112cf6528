package warm

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// scanUpper finds what of a baseline's upper dir may feed the layer: the
// topmost git-ignored entries it holds (taken, a trailing '/' for a
// directory) and its whiteouts at ignored paths (gone: the baseline
// removed a build output). It asks git one level at a time and descends
// only into directories git does not ignore, so an ignored target/ of a
// hundred thousand files costs one question.
func scanUpper(ws, upper string) (taken, gone []string, err error) {
	level := children(upper, "")
	for len(level) > 0 {
		var ask []string
		for _, e := range level {
			switch {
			case e.whiteout:
				ask = append(ask, e.rel, e.rel+"/")
			case e.fi.IsDir():
				ask = append(ask, e.rel+"/")
			default:
				ask = append(ask, e.rel)
			}
		}
		ig, err := ignored(ws, ask)
		if err != nil {
			return nil, nil, err
		}
		var next []entry
		for _, e := range level {
			switch {
			case e.whiteout:
				if ig[e.rel] || ig[e.rel+"/"] {
					gone = append(gone, e.rel)
				}
			case e.fi.IsDir() && ig[e.rel+"/"]:
				taken = append(taken, e.rel+"/")
			case e.fi.IsDir():
				next = append(next, children(upper, e.rel)...)
			case ig[e.rel]:
				taken = append(taken, e.rel)
			}
		}
		level = next
	}
	return taken, gone, nil
}

type entry struct {
	rel      string
	fi       fs.FileInfo
	whiteout bool
}

// children lists dir/rel's entries, never a .git (the repository is no
// build output, and a nested one is not ours to take).
func children(dir, rel string) []entry {
	des, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	var out []entry
	for _, de := range des {
		if de.Name() == ".git" {
			continue
		}
		r := path.Join(rel, de.Name())
		p := filepath.Join(dir, filepath.FromSlash(r))
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		out = append(out, entry{rel: r, fi: fi, whiteout: isWhiteout(p, fi)})
	}
	return out
}

// topmost keeps the roots no other root contains, sorted.
func topmost(roots []string) []string {
	sort.Strings(roots)
	var out []string
	for _, r := range roots {
		bare := strings.TrimSuffix(r, "/")
		covered := false
		for _, o := range out {
			if strings.HasSuffix(o, "/") && strings.HasPrefix(bare+"/", o) {
				covered = true
				break
			}
			if o == r || strings.TrimSuffix(o, "/") == bare {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out
}

// insideLink reports whether a symlink at rel with target stays inside
// the workspace, read lexically (a layer must not offer a way out of the
// tree, e.g. target/x -> /etc).
func insideLink(ws, rel, target string) bool {
	if target == "" {
		return false
	}
	var abs string
	if filepath.IsAbs(target) {
		abs = filepath.Clean(target)
	} else {
		abs = filepath.Join(ws, filepath.FromSlash(path.Dir(rel)), target)
	}
	r, err := filepath.Rel(ws, abs)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
