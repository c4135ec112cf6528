//go:build linux || darwin

package copy

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// refCandidate is a file whose kind is known to record absolute paths.
type refCandidate struct {
	rel    string
	script bool // a script in a virtualenv's bin/: only its #! line matters
}

// refNames are files that tools write with absolute paths in them: a test
// run that follows one reaches the checkout's code, not the hypothesis's,
// and the verdict would be wrong.
var refNames = map[string]bool{
	"CMakeCache.txt":      true, // CMAKE_HOME_DIRECTORY, <proj>_SOURCE_DIR
	"Makefile":            true, // CMake-generated: cd /abs/build && ...
	"build.ninja":         true,
	"cmake_install.cmake": true,
	"CTestTestfile.cmake": true,
	"pyvenv.cfg":          true, // a venv made from another venv, `command =`
	"direct_url.json":     true, // pip's record of an editable install
	"go.work":             true, // use /abs/module
}

// noteRef remembers a directory entry worth reading for the checkout's
// path once the copy is made.
func (c *copier) noteRef(dir, name string, fi fs.FileInfo) {
	rel := join(dir, name)
	switch {
	case dir == "" && name == ".git" && fi.Mode().IsRegular():
		// A worktree's .git file: "gitdir: /abs/main/.git/worktrees/x".
		c.refs = append(c.refs, refCandidate{rel: rel})
	case !fi.Mode().IsRegular():
	case refNames[name],
		strings.HasSuffix(name, ".pth"), strings.HasSuffix(name, ".egg-link"),
		strings.HasPrefix(name, "__editable__"),
		path.Base(dir) == ".cargo" && (name == "config" || name == "config.toml"):
		c.refs = append(c.refs, refCandidate{rel: rel})
	case path.Base(dir) == "bin" && c.venvs[parentOf(dir)]:
		c.refs = append(c.refs, refCandidate{rel: rel, script: true})
	}
}

// backRefs reads the candidates in the copy and returns one line per kind
// of file that names the checkout by its absolute path.
func (c *copier) backRefs() []string {
	var files, scripts []string
	for _, cand := range c.refs {
		limit := int64(1 << 20)
		if cand.script {
			limit = 512
		}
		b, err := readHead(c.dstPath(cand.rel), limit)
		if err != nil {
			continue
		}
		if cand.script {
			line, _, _ := bytes.Cut(b, []byte("\n"))
			if bytes.HasPrefix(line, []byte("#!")) && containsPath(line, c.src) {
				scripts = append(scripts, cand.rel)
			}
			continue
		}
		if containsPath(b, c.src) {
			files = append(files, cand.rel)
		}
	}
	sort.Strings(files)
	var out []string
	if len(files) > 0 {
		out = append(out, fmt.Sprintf("copy mode: %s name(s) the checkout %s by absolute path; what the command reaches through it is the checkout's, not this hypothesis's", list(files), c.src))
	}
	if len(scripts) > 0 {
		sort.Strings(scripts)
		out = append(out, fmt.Sprintf("copy mode: %d virtualenv script(s) (%s) start with #! %s/...: they run the checkout's interpreter and packages; run `python -m ...` instead", len(scripts), list(scripts), c.src))
	}
	return out
}

func parentOf(rel string) string {
	if p := path.Dir(rel); p != "." {
		return p
	}
	return ""
}

func list(paths []string) string {
	if len(paths) > 4 {
		return strings.Join(paths[:4], ", ") + fmt.Sprintf(" and %d more", len(paths)-4)
	}
	return strings.Join(paths, ", ")
}

func readHead(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// containsPath reports whether b holds dir as a whole path (not the
// prefix of a longer name, such as /src/app in /src/app2).
func containsPath(b []byte, dir string) bool {
	d := []byte(dir)
	for i := 0; ; {
		j := bytes.Index(b[i:], d)
		if j < 0 {
			return false
		}
		end := i + j + len(d)
		if end == len(b) || !isNameByte(b[end]) {
			return true
		}
		i = end
	}
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
