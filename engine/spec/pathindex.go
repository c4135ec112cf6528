package spec

import "strings"

// pathIndex is a set of '/'-separated paths that also answers, for a
// directory, which of them lie below it: resolution asks that for every
// edit (is its target a directory of the base? is a parent a file?) and
// every delete (which files does rm -rf drop?), so a scan of the whole
// set there made a hypothesis of n edits cost n² (50,000 edits: minutes
// before anything ran). Adding or dropping a path costs its depth;
// below(dir) the paths it returns.
type pathIndex struct {
	below map[string]map[string]struct{} // directory -> paths strictly below it
}

func newPathIndex() pathIndex { return pathIndex{below: map[string]map[string]struct{}{}} }

// ancestors calls fn with each proper ancestor directory of p, deepest
// first.
func ancestors(p string, fn func(dir string)) {
	for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
		fn(p[:i])
	}
}

func (x pathIndex) add(p string) {
	ancestors(p, func(d string) {
		m := x.below[d]
		if m == nil {
			m = map[string]struct{}{}
			x.below[d] = m
		}
		m[p] = struct{}{}
	})
}

func (x pathIndex) drop(p string) {
	ancestors(p, func(d string) {
		if m := x.below[d]; m != nil {
			delete(m, p)
			if len(m) == 0 {
				delete(x.below, d)
			}
		}
	})
}

// under lists the paths strictly below dir (a copy: the caller may drop
// them), smallest first is not promised.
func (x pathIndex) under(dir string) []string {
	m := x.below[dir]
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	return out
}

// first is the smallest path below dir, "" for none (a stable name for a
// message).
func (x pathIndex) first(dir string) string {
	best := ""
	for p := range x.below[dir] {
		if best == "" || p < best {
			best = p
		}
	}
	return best
}
