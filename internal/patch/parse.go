package patch

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// section is one file's part of a patch, as the orchestration in Apply
// needs it: go-gitdiff reads the text, section says what it means here.
type section struct {
	path   string
	from   string // source of a git rename or copy (path is the target)
	rename bool   // from is removed
	create bool   // old side is /dev/null or "new file mode"
	delete bool   // new side is /dev/null or "deleted file mode"
	mode   os.FileMode
	hunks  []*gitdiff.TextFragment
}

const gitHeader = "diff --git "

// parse reads a patch with go-gitdiff. The text is cut before each
// "diff --git " line (one cannot occur inside a hunk, whose lines start with
// ' ', '+', '-' or '\') so that the file each chunk starts with is known to
// be git's: go-gitdiff drops one leading component from git's names (a/,
// b/, or diff.mnemonicPrefix's i/ w/ ...) but none from a plain diff -u's,
// where shadow drops a/ or b/ as patch -p1 would for those two only.
func parse(text string) ([]*section, error) {
	crlf := allCRLF(text)
	if crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	if name, ok := binaryNotice(text); ok {
		return nil, fmt.Errorf("patch changes binary file %s: not supported, use an edit with content_base64", name)
	}
	var out []*section
	for _, c := range chunks(text) {
		body := blankCRLF(c.text)
		if c.git {
			body = unprefixed(body)
		}
		files, _, err := gitdiff.Parse(strings.NewReader(body))
		if err != nil {
			return nil, syntaxError(err, text, c)
		}
		for i, f := range files {
			s, err := newSection(f, c.git && i == 0, c.header)
			if err != nil {
				return nil, err
			}
			if crlf {
				restoreCR(s.hunks)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// chunk is a part of a patch that starts at a "diff --git " line (git), or
// the text before the first one.
type chunk struct {
	text   string
	line   int    // line number of its first line, from 1
	git    bool   // starts with a git header
	header string // that header, without its terminator
}

func chunks(text string) []chunk {
	var out []chunk
	cur := chunk{line: 1}
	start, n := 0, 1
	for i := 0; i < len(text); {
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += i + 1
		}
		if strings.HasPrefix(text[i:end], gitHeader) && i > start {
			cur.text = text[start:i]
			out = append(out, cur)
			cur, start = chunk{line: n}, i
		}
		if i == start && strings.HasPrefix(text[i:end], gitHeader) {
			cur.git, cur.header = true, strings.TrimRight(text[i:end], "\r\n")
		}
		i = end
		n++
	}
	if start < len(text) {
		cur.text = text[start:]
		out = append(out, cur)
	}
	return out
}

// binaryNotice finds the line diff -r prints for binary files that differ
// ("Binary files a/x and b/x differ"). Outside a git section go-gitdiff
// skips it as text between files, so the change would be dropped silently;
// inside one it is git's own marker, refused the same. It is never a hunk's
// content, whose lines start with ' ', '+', '-' or '\'. The name is the new
// side's, for the message.
func binaryNotice(text string) (string, bool) {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		names, ok := strings.CutPrefix(l, "Binary files ")
		if !ok || !strings.HasSuffix(names, " differ") {
			continue
		}
		names = strings.TrimSuffix(names, " differ")
		if i := strings.LastIndex(names, " and "); i >= 0 {
			names = names[i+len(" and "):]
		}
		return stripPrefix(names), true
	}
	return "", false
}

// allCRLF reports whether every line of text ends with "\r\n": a patch
// that went through a CRLF conversion whole (an editor, a Windows client),
// headers included, which go-gitdiff would read as names ending in "\r".
func allCRLF(text string) bool {
	n := strings.Count(text, "\n")
	return n > 0 && strings.Count(text, "\r\n") == n
}

// restoreCR gives the hunk lines of an all-CRLF patch back the "\r" that
// parse removed to read the headers: the content lines were CRLF too, and a
// line left without a terminator by a "\ No newline" marker keeps its "\r",
// so they still match a CRLF file byte for byte.
func restoreCR(hunks []*gitdiff.TextFragment) {
	for _, h := range hunks {
		for i := range h.Lines {
			l := &h.Lines[i]
			if t, ok := strings.CutSuffix(l.Line, "\n"); ok {
				l.Line = t + "\r\n"
			} else {
				l.Line += "\r"
			}
		}
	}
}

// blankCRLF restores the leading space of empty CRLF context lines: an
// editor that trims trailing white space leaves " \r\n" as "\r\n", and git
// apply and patch take it as context, as go-gitdiff does for "\n" only.
// Outside a hunk such a line ends a header either way.
func blankCRLF(text string) string {
	if !strings.HasPrefix(text, "\r\n") && !strings.Contains(text, "\n\r\n") {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l == "\r\n" {
			lines[i] = " \r\n"
		}
	}
	return strings.Join(lines, "")
}

// gitdiffLine is how go-gitdiff's parser errors start (parser.Errorf).
var gitdiffLine = regexp.MustCompile(`^gitdiff: line (\d+): `)

// syntaxError turns a go-gitdiff error into a *SyntaxError with the line
// counted in the whole patch, and that line's text.
func syntaxError(err error, text string, c chunk) error {
	msg := err.Error()
	m := gitdiffLine.FindStringSubmatch(msg)
	if m == nil {
		return &SyntaxError{Line: c.line, Section: c.header, Msg: strings.TrimPrefix(msg, "gitdiff: ")}
	}
	n, _ := strconv.Atoi(m[1])
	n += c.line - 1
	e := &SyntaxError{Line: n, Section: c.header, Msg: withHint(msg[len(m[0]):])}
	if lines := strings.SplitAfter(text, "\n"); n >= 1 && n <= len(lines) {
		e.Text = strings.TrimRight(lines[n-1], "\r\n")
	}
	return e
}

// newSection checks what go-gitdiff read against what Apply can do, and
// names the paths as shadow does: workspace-relative, without git's
// prefixes.
func newSection(f *gitdiff.File, git bool, header string) (*section, error) {
	s := &section{
		path: f.NewName, from: f.OldName,
		rename: f.IsRename, create: f.IsNew, delete: f.IsDelete,
		hunks: f.TextFragments,
	}
	if f.IsDelete {
		s.path = f.OldName
	}
	if !git {
		s.path, s.from = stripPrefix(s.path), stripPrefix(s.from)
		header = "--- " + s.path
	}
	if f.IsBinary {
		return nil, fmt.Errorf("patch changes binary file %s: not supported, use an edit with content_base64", s.path)
	}
	where := fmt.Sprintf("patch section %q", header)
	if s.path == "/dev/null" {
		return nil, fmt.Errorf("%s: both sides are /dev/null", where)
	}
	if f.NewMode != 0 {
		if f.NewMode&^0o777 != 0o100000 {
			return nil, fmt.Errorf("%s: mode %o of %s: only regular files are supported (not symlinks or submodules)", where, uint32(f.NewMode), s.path)
		}
		s.mode = f.NewMode & 0o777
	}
	if !f.IsRename && !f.IsCopy {
		s.from = ""
		return s, nil
	}
	kind := "copy"
	if f.IsRename {
		kind = "rename"
	}
	switch {
	case f.IsRename && f.IsCopy:
		return nil, fmt.Errorf("%s: rename and copy lines at once", where)
	case f.IsNew || f.IsDelete:
		return nil, fmt.Errorf("%s: a %s cannot also create or delete a file", where, kind)
	case s.from == s.path:
		return nil, fmt.Errorf("%s: %s of %s onto itself", where, kind, s.from)
	}
	return s, nil
}

// stripPrefix removes one leading component only when it is a/ or b/: a
// plain diff -u names files as given on its command line.
func stripPrefix(p string) string {
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		return p[2:]
	}
	return p
}
