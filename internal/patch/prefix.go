package patch

import "strings"

// unprefixed rewrites the header of a git chunk written without a/ and b/
// (git diff --no-prefix, or diff.noprefix) into the prefixed form that
// go-gitdiff reads: it always drops one leading component from git's
// names, which would make "src/calc.py" calc.py. Only header lines change,
// never a hunk, and the line count stays, so error lines still match.
//
// Two cases are told apart without guessing:
//   - the header's two names are the same text ("diff --git X X"): with
//     prefixes git always writes two different ones (a/ b/, or
//     diff.mnemonicPrefix's i/ w/ c/ o/), so X is the path itself;
//   - a rename or copy whose "---"/"+++" line names exactly the source or
//     target of its "rename from"/"rename to" lines (which git writes
//     without prefixes in both forms).
func unprefixed(chunk string) string {
	lines := strings.SplitAfter(chunk, "\n")
	hdr := strings.TrimRight(strings.TrimPrefix(lines[0], gitHeader), "\r\n")
	same := ""
	if h := len(hdr) / 2; len(hdr)%2 == 1 && hdr[h] == ' ' && hdr[:h] == hdr[h+1:] {
		same = hdr[:h]
		lines[0] = gitHeader + withPrefix(same, "a/") + " " + withPrefix(same, "b/") + lines[0][len(gitHeader)+len(hdr):]
	}
	from, to := same, same
	changed := same != ""
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "@@ ") || strings.HasPrefix(l, gitHeader) {
			break // the hunks: nothing more to rewrite
		}
		for _, k := range []string{"rename", "copy"} {
			if v, ok := strings.CutPrefix(l, k+" from "); ok {
				from = strings.TrimRight(v, "\r\n")
			}
			if v, ok := strings.CutPrefix(l, k+" to "); ok {
				to = strings.TrimRight(v, "\r\n")
			}
		}
		for _, side := range []struct{ mark, name, prefix string }{{"--- ", from, "a/"}, {"+++ ", to, "b/"}} {
			rest, ok := strings.CutPrefix(l, side.mark)
			if !ok || side.name == "" || lineName(rest) != side.name {
				continue
			}
			lines[i] = side.mark + withPrefix(rest, side.prefix)
			changed = true
		}
	}
	if !changed {
		return chunk
	}
	return strings.Join(lines, "")
}

// lineName is the raw name of a ---/+++ line's rest, quotes kept: up to a
// tab (git puts one after a name holding a space) or the line's end.
func lineName(rest string) string {
	rest = strings.TrimRight(rest, "\r\n")
	if !strings.HasPrefix(rest, `"`) {
		if i := strings.IndexByte(rest, '\t'); i >= 0 {
			rest = rest[:i]
		}
	}
	return rest
}

// withPrefix puts prefix before a raw name, inside its quotes when quoted
// (a C-quoted name stays valid with a/ added after the opening quote).
func withPrefix(raw, prefix string) string {
	if strings.HasPrefix(raw, `"`) {
		return `"` + prefix + raw[1:]
	}
	return prefix + raw
}
