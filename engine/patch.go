package engine

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// PatchChange is the result of a patch on one file.
type PatchChange struct {
	Path    string // as named by the patch, a/ or b/ prefix removed
	Content []byte // the file's new content (nil when Deleted)
	Deleted bool
	// Mode holds the permission bits of a git "new file mode" or "new mode"
	// line, 0 when the patch names none (the caller keeps the existing mode,
	// or From's for a rename or copy).
	Mode os.FileMode
	// From is the source of a git rename or copy whose target is Path, ""
	// otherwise. A rename also yields a Deleted change for From.
	From string
}

// ApplyPatch applies a unified diff (as `git diff` or `diff -u` prints it) to
// the files it names. read returns the current content of a path as the
// patch names it (exists=false if absent); its errors are returned wrapped.
// Nothing is written: the caller gets the new contents.
//
// Sections that name the same path apply in sequence (concatenated diffs).
// The source of a git rename or copy is read as it was before the patch,
// as git apply does: git diff prints a copy's source modified in place
// before or after the copy, and swaps as two renames, so the order of those
// sections must not matter. Only a source that the patch itself created
// earlier (concatenated diffs again) is read from the patch's result.
func ApplyPatch(patch string, read func(path string) (content []byte, exists bool, err error)) ([]PatchChange, error) {
	files, err := parsePatch(patch)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("patch holds no file diff")
	}
	type orig struct {
		content []byte
		exists  bool
	}
	origs := map[string]orig{}
	readOrig := func(p string) ([]byte, bool, error) {
		if o, ok := origs[p]; ok {
			return o.content, o.exists, nil
		}
		c, ok, err := read(p)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", p, err)
		}
		origs[p] = orig{c, ok}
		return c, ok, nil
	}
	// Paths a rename moves away may be created anew by another section
	// (a swap, or a new file under the old name), in either order.
	leaving := map[string]bool{}
	for _, f := range files {
		if f.rename {
			leaving[f.from] = true
		}
	}
	state := map[string]*PatchChange{}
	created := map[string]bool{} // written by a creation, rename or copy
	renamed := map[string]string{}
	var order, deferred []string
	set := func(ch *PatchChange) {
		if _, seen := state[ch.Path]; !seen {
			order = append(order, ch.Path)
		}
		state[ch.Path] = ch
	}
	for _, f := range files {
		if f.from == "" {
			var content []byte
			var exists bool
			if cur, seen := state[f.path]; seen {
				content, exists = cur.Content, !cur.Deleted
			} else if !(f.create && leaving[f.path]) {
				if content, exists, err = readOrig(f.path); err != nil {
					return nil, err
				}
			}
			ch, err := f.apply(content, exists)
			if err != nil {
				return nil, err
			}
			if f.create {
				created[f.path] = true
			}
			set(ch)
			continue
		}

		verb := "copies"
		if f.rename {
			verb = "renames"
			if to, twice := renamed[f.from]; twice {
				return nil, fmt.Errorf("patch renames %s twice (to %s and %s)", f.from, to, f.path)
			}
			renamed[f.from] = f.path
		}
		content, exists, err := readOrig(f.from)
		if err != nil {
			return nil, err
		}
		fromPatch := false
		if !exists {
			cur, seen := state[f.from]
			if !seen || cur.Deleted {
				return nil, fmt.Errorf("patch %s %s, but it does not exist", verb, f.from)
			}
			content, fromPatch = cur.Content, true
		}
		if cur, seen := state[f.path]; seen {
			if !cur.Deleted {
				return nil, fmt.Errorf("patch %s %s to %s, but the patch also writes %s", verb, f.from, f.path, f.path)
			}
		} else if !leaving[f.path] {
			_, exists, err := readOrig(f.path)
			if err != nil {
				return nil, err
			}
			if exists {
				return nil, fmt.Errorf("patch %s %s to %s, but %s already exists", verb, f.from, f.path, f.path)
			}
		}
		ch, err := f.apply(content, true)
		if err != nil {
			return nil, err
		}
		ch.From = f.from
		created[f.path] = true
		set(ch)
		if f.rename {
			if fromPatch {
				set(&PatchChange{Path: f.from, Deleted: true})
			} else {
				deferred = append(deferred, f.from)
			}
		}
	}
	// A renamed source is gone unless another section created it anew.
	for _, p := range deferred {
		cur, seen := state[p]
		switch {
		case !seen:
			set(&PatchChange{Path: p, Deleted: true})
		case !created[p] || cur.Deleted:
			return nil, fmt.Errorf("patch renames %s to %s, but another section also changes or deletes %s", p, renamed[p], p)
		}
	}
	changes := make([]PatchChange, 0, len(order))
	for _, p := range order {
		changes = append(changes, *state[p])
	}
	return changes, nil
}

// filePatch is one file's section of a patch.
type filePatch struct {
	path   string
	from   string // source of a git rename or copy (path is the target)
	rename bool   // from is removed
	create bool   // old side is /dev/null or "new file mode"
	delete bool   // new side is /dev/null or "deleted file mode"
	mode   os.FileMode
	hunks  []hunk
}

type hunk struct {
	oldStart, oldCount, newStart, newCount int
	lines                                  []hunkLine
}

// hunkLine keeps its line terminator as in the file ("\n", "\r\n", or none
// after a "\ No newline at end of file" marker) so that comparisons and the
// rebuilt file are byte-exact, CRLF included.
type hunkLine struct {
	op   byte // ' ', '-', '+'
	text string
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// splitLines splits s into lines that keep their "\n"; the last one may lack it.
func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// header returns a header line without its terminator (CR included, for
// patches that went through a CRLF conversion).
func header(l string) string { return strings.TrimRight(l, "\r\n") }

func parsePatch(patch string) ([]*filePatch, error) {
	lines := splitLines(patch)
	var files []*filePatch
	i := 0
	for i < len(lines) {
		l := header(lines[i])
		switch {
		case strings.HasPrefix(l, "diff --git "):
			f, next, err := parseGitSection(lines, i)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
			i = next
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			f := &filePatch{}
			next, err := f.parseNames(lines, i)
			if err != nil {
				return nil, err
			}
			if next, err = f.parseHunks(lines, next); err != nil {
				return nil, err
			}
			files = append(files, f)
			i = next
		default:
			// Text outside file sections (a commit message, "Only in",
			// "diff -u a b" command lines) is ignored, as patch does.
			i++
		}
	}
	return files, nil
}

func parseGitSection(lines []string, i int) (*filePatch, int, error) {
	f := &filePatch{}
	hdr := strings.TrimPrefix(header(lines[i]), "diff --git ")
	f.path = gitHeaderPath(hdr)
	var fromKind, toKind string // "rename" or "copy"
	i++
	hunks := false
header:
	for ; i < len(lines); i++ {
		l := header(lines[i])
		var err error
		switch {
		case strings.HasPrefix(l, "new file mode "):
			f.create = true
			f.mode, err = gitMode(l, "new file mode ")
		case strings.HasPrefix(l, "deleted file mode "):
			f.delete = true
		case strings.HasPrefix(l, "new mode "):
			f.mode, err = gitMode(l, "new mode ")
		case strings.HasPrefix(l, "old mode "), strings.HasPrefix(l, "index "),
			strings.HasPrefix(l, "similarity index "), strings.HasPrefix(l, "dissimilarity index "):
		case strings.HasPrefix(l, "rename from "), strings.HasPrefix(l, "copy from "):
			fromKind, _, _ = strings.Cut(l, " ")
			f.from, err = gitName(l, fromKind+" from ")
		case strings.HasPrefix(l, "rename to "), strings.HasPrefix(l, "copy to "):
			toKind, _, _ = strings.Cut(l, " ")
			f.path, err = gitName(l, toKind+" to ")
		case strings.HasPrefix(l, "Binary files "), l == "GIT binary patch":
			return nil, 0, fmt.Errorf("patch changes binary file %s: not supported, use an edit with content_base64", orHeader(f.path, hdr))
		case strings.HasPrefix(l, "--- "):
			hunks = true
			break header
		default:
			// End of the extended header: a section without hunks (an
			// empty file created or deleted, a mode change, a rename).
			break header
		}
		if err != nil {
			return nil, 0, err
		}
	}
	section := "diff --git " + hdr
	if fromKind == "" && toKind == "" && f.path == "" {
		return nil, 0, fmt.Errorf("cannot read file name in %q", section)
	}
	next := i
	if hunks {
		var err error
		if next, err = f.parseNames(lines, i); err != nil {
			return nil, 0, err
		}
	}
	switch {
	case fromKind == "" && toKind == "":
	case fromKind == "":
		return nil, 0, fmt.Errorf("patch section %q: %q without %q", section, toKind+" to", toKind+" from")
	case toKind == "":
		return nil, 0, fmt.Errorf("patch section %q: %q without %q", section, fromKind+" from", fromKind+" to")
	case fromKind != toKind:
		return nil, 0, fmt.Errorf("patch section %q: %q with %q", section, fromKind+" from", toKind+" to")
	case f.create || f.delete:
		return nil, 0, fmt.Errorf("patch section %q: a %s cannot also create or delete a file", section, fromKind)
	case f.from == f.path:
		return nil, 0, fmt.Errorf("patch section %q: %s of %s onto itself", section, fromKind, f.from)
	case hunks && !sameName(lines[i], "--- ", f.from):
		return nil, 0, fmt.Errorf("patch section %q: %q does not name the %s source %s", section, header(lines[i]), fromKind, f.from)
	case hunks && !sameName(lines[i+1], "+++ ", f.path):
		return nil, 0, fmt.Errorf("patch section %q: %q does not name the %s target %s", section, header(lines[i+1]), fromKind, f.path)
	default:
		f.rename = fromKind == "rename"
	}
	if !hunks {
		return f, i, nil
	}
	next, err := f.parseHunks(lines, next)
	return f, next, err
}

// sameName reports whether a ---/+++ line names p, with git's a/ and b/ or
// another one-component prefix (diff.mnemonicPrefix's i/ w/ c/...).
func sameName(l, prefix, p string) bool {
	n, _, err := fileName(l, prefix)
	if err != nil {
		return false
	}
	if n == p {
		return true
	}
	_, rest, ok := strings.Cut(n, "/")
	return ok && rest == p
}

// gitName reads the name of a "rename from"-style line: C-quoted when it
// holds special characters, and without a/ or b/ prefix.
func gitName(l, prefix string) (string, error) {
	s := strings.TrimPrefix(l, prefix)
	if strings.HasPrefix(s, `"`) {
		n, rest, ok := cutQuoted(s)
		if !ok || rest != "" {
			return "", fmt.Errorf("bad quoted name in %q", l)
		}
		s = n
	}
	if s == "" {
		return "", fmt.Errorf("empty file name in %q", l)
	}
	return s, nil
}

func orHeader(path, hdr string) string {
	if path != "" {
		return path
	}
	return hdr
}

// gitMode reads a git mode line; only regular files can be proposed.
func gitMode(l, prefix string) (os.FileMode, error) {
	v, err := strconv.ParseUint(strings.TrimPrefix(l, prefix), 8, 32)
	if err != nil || v&^0o777 != 0o100000 {
		return 0, fmt.Errorf("patch line %q: only regular files are supported (not symlinks or submodules)", l)
	}
	return os.FileMode(v & 0o777), nil
}

// gitHeaderPath finds the path of "a/P b/P" (or "P P" with --no-prefix, or
// quoted names). It returns "" when the two names differ (a rename, which
// the extended header then reports) or cannot be split.
func gitHeaderPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		a, rest, ok := cutQuoted(s)
		if !ok || !strings.HasPrefix(rest, " ") {
			return ""
		}
		b := strings.TrimPrefix(rest, " ")
		if strings.HasPrefix(b, `"`) {
			if b, rest, ok = cutQuoted(b); !ok || rest != "" {
				return ""
			}
		}
		a, b = stripPrefix(a), stripPrefix(b)
		if a != b {
			return ""
		}
		return a
	}
	// Unquoted: both names are equal, so the separating space is the middle.
	if len(s)%2 == 0 {
		return ""
	}
	h := len(s) / 2
	a, b := s[:h], s[h+1:]
	if s[h] != ' ' {
		return ""
	}
	if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
		return a[2:]
	}
	if a == b {
		return a
	}
	return ""
}

// cutQuoted splits a C-quoted name (as git writes names with special
// characters) from the start of s.
func cutQuoted(s string) (name, rest string, ok bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			n, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", false
			}
			return n, s[i+1:], true
		}
	}
	return "", "", false
}

// stripPrefix removes one leading component only when it is git's a/ or b/.
func stripPrefix(p string) string {
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		return p[2:]
	}
	return p
}

// fileName reads the name of a ---/+++ line: quoted, or up to a tab (diff -u
// puts a timestamp there; git a tab after names holding spaces).
func fileName(l, prefix string) (name string, devNull bool, err error) {
	s := strings.TrimPrefix(header(l), prefix)
	if strings.HasPrefix(s, `"`) {
		n, _, ok := cutQuoted(s)
		if !ok {
			return "", false, fmt.Errorf("bad quoted name in %q", header(l))
		}
		s = n
	} else if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s == "/dev/null" {
		return "", true, nil
	}
	s = stripPrefix(s)
	if s == "" {
		return "", false, fmt.Errorf("empty file name in %q", header(l))
	}
	return s, false, nil
}

func (f *filePatch) parseNames(lines []string, i int) (int, error) {
	if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
		return 0, fmt.Errorf("line %d: \"---\" without a following \"+++\" line", i+1)
	}
	oldName, oldNull, err := fileName(lines[i], "--- ")
	if err != nil {
		return 0, err
	}
	newName, newNull, err := fileName(lines[i+1], "+++ ")
	if err != nil {
		return 0, err
	}
	switch {
	case oldNull && newNull:
		return 0, fmt.Errorf("line %d: both sides are /dev/null", i+1)
	case oldNull:
		f.create, f.path = true, newName
	case newNull:
		f.delete, f.path = true, oldName
	default:
		// Plain diff -u between differently named files (calc.py.orig vs
		// calc.py) targets the new name, unless a git header said more.
		if f.path == "" {
			f.path = newName
		}
	}
	return i + 2, nil
}

func (f *filePatch) parseHunks(lines []string, i int) (int, error) {
	for i < len(lines) && strings.HasPrefix(lines[i], "@@ ") {
		m := hunkHeader.FindStringSubmatch(lines[i])
		if m == nil {
			return 0, fmt.Errorf("%s: bad hunk header %q", f.path, header(lines[i]))
		}
		h := hunk{oldStart: atoi(m[1]), oldCount: 1, newStart: atoi(m[3]), newCount: 1}
		if m[2] != "" {
			h.oldCount = atoi(m[2])
		}
		if m[4] != "" {
			h.newCount = atoi(m[4])
		}
		i++
		oldN, newN := 0, 0
		for oldN < h.oldCount || newN < h.newCount {
			if i >= len(lines) {
				return 0, fmt.Errorf("%s hunk %d: patch ends inside the hunk", f.path, len(f.hunks)+1)
			}
			l := lines[i]
			var hl hunkLine
			switch {
			case l == "\n" || l == "\r\n":
				// An empty context line whose leading space was stripped
				// by an editor; git apply and patch accept it too.
				hl = hunkLine{' ', l}
			case l[0] == ' ' || l[0] == '-' || l[0] == '+':
				hl = hunkLine{l[0], l[1:]}
			default:
				return 0, fmt.Errorf("%s hunk %d: unexpected line %q (the hunk header's counts do not match its lines)", f.path, len(f.hunks)+1, header(l))
			}
			if hl.op != '+' {
				oldN++
			}
			if hl.op != '-' {
				newN++
			}
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], `\`) {
				hl.text = strings.TrimSuffix(hl.text, "\n")
				i++
			}
			h.lines = append(h.lines, hl)
		}
		if oldN != h.oldCount || newN != h.newCount {
			return 0, fmt.Errorf("%s hunk %d: line counts do not match the header", f.path, len(f.hunks)+1)
		}
		f.hunks = append(f.hunks, h)
	}
	return i, nil
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1 // out of range: will not match anything
	}
	return n
}

// apply applies the section's hunks to content.
func (f *filePatch) apply(content []byte, exists bool) (*PatchChange, error) {
	if f.create && exists {
		return nil, fmt.Errorf("patch creates %s, but it already exists", f.path)
	}
	if !f.create && !exists && !f.onlyAdds() {
		return nil, fmt.Errorf("patch changes %s, but it does not exist", f.path)
	}
	lines := splitLines(string(content))
	var out []string
	cursor, offset := 0, 0
	for n, h := range f.hunks {
		var old, neu []string
		for _, l := range h.lines {
			if l.op != '+' {
				old = append(old, l.text)
			}
			if l.op != '-' {
				neu = append(neu, l.text)
			}
		}
		want := h.oldStart - 1 // 0-based first old line
		if h.oldCount == 0 {
			want = h.oldStart // "-k,0" inserts after line k
		}
		pos := findHunk(lines, old, want+offset, cursor)
		if pos < 0 {
			return nil, fmt.Errorf("patch does not apply: %s hunk %d at line %d", f.name(), n+1, h.oldStart)
		}
		offset = pos - want
		out = append(out, lines[cursor:pos]...)
		out = append(out, neu...)
		cursor = pos + len(old)
	}
	out = append(out, lines[cursor:]...)
	result := []byte(strings.Join(out, ""))
	if f.delete {
		if len(result) != 0 {
			return nil, fmt.Errorf("patch does not apply: %s is deleted but %d line(s) would remain", f.path, len(out))
		}
		return &PatchChange{Path: f.path, Deleted: true}, nil
	}
	if result == nil {
		result = []byte{}
	}
	return &PatchChange{Path: f.path, Content: result, Mode: f.mode}, nil
}

// name is the section's path for messages, with the source of a rename or
// copy, whose content the hunks apply to.
func (f *filePatch) name() string {
	switch {
	case f.from == "":
		return f.path
	case f.rename:
		return f.path + " (renamed from " + f.from + ")"
	}
	return f.path + " (copied from " + f.from + ")"
}

// onlyAdds reports whether every hunk starts from an empty old side, as
// `diff -N` prints a new file under its own name instead of /dev/null.
func (f *filePatch) onlyAdds() bool {
	for _, h := range f.hunks {
		if h.oldCount != 0 {
			return false
		}
	}
	return len(f.hunks) > 0
}

// findHunk returns where old occurs in lines at or after min, nearest to
// want (the stated line plus the previous hunk's offset), or -1. Like patch
// with fuzz 0: context must match exactly, only the position may move.
func findHunk(lines, old []string, want, min int) int {
	last := len(lines) - len(old) // highest possible start
	if want < min {
		want = min
	}
	if want > last {
		want = last
	}
	matches := func(p int) bool {
		if p < min || p > last {
			return false
		}
		for i, l := range old {
			if lines[p+i] != l {
				return false
			}
		}
		return true
	}
	for d := 0; want-d >= min || want+d <= last; d++ {
		if matches(want + d) {
			return want + d
		}
		if d > 0 && matches(want-d) {
			return want - d
		}
	}
	return -1
}
