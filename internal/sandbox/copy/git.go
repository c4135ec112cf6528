//go:build linux || darwin

package copy

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// borrowObjects stands in for the copy of .git/objects. Everything else
// in .git (HEAD, refs, the index, config, hooks) is copied: it is small,
// and a command that runs git (setuptools-scm, `git diff` in a test,
// vitest --changed, go's VCS stamping) then sees the checkout's state and
// changes only the copy's. The object store, which can be most of a
// repository's size, is not copied: the copy's objects/info/alternates
// names the checkout's, which git only ever reads (gitrepository-layout(5):
// new objects go to the repository's own objects directory, never to an
// alternate), so reading history costs nothing and no command in the copy
// can change the checkout's objects through git.
func (c *copier) borrowObjects(rel string, fi fs.FileInfo) error {
	dst := c.dstPath(rel)
	for _, d := range []string{dst, filepath.Join(dst, "info"), filepath.Join(dst, "pack")} {
		if err := os.Mkdir(d, fi.Mode().Perm()|0o700); err != nil {
			return fmt.Errorf("prepare %s in the copy: %w", rel, err)
		}
	}
	srcObjects := c.srcPath(rel)
	lines := []string{srcObjects}
	// The checkout's own alternates (a clone made with --reference or
	// --shared) must stay reachable; relative ones are relative to its
	// objects directory.
	if f, err := os.Open(filepath.Join(srcObjects, "info", "alternates")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			if !filepath.IsAbs(l) {
				l = filepath.Join(srcObjects, l)
			}
			lines = append(lines, l)
		}
		f.Close()
	}
	alt := filepath.Join(dst, "info", "alternates")
	if err := os.WriteFile(alt, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", alt, err)
	}
	if st, err := os.Lstat(alt); err == nil {
		c.stamps[rel+"/info/alternates"] = stampOf(st, "")
	}
	c.st.Dirs += 3
	return nil
}
