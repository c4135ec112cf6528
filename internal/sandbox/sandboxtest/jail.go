package sandboxtest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// JailTool is the repository's own test/tools/jail (bubblewrap with
// --disable-userns: a place where namespaces are forbidden, as in many
// containers), found by walking up from the test's directory, so a clone
// runs the same confined tests CI does; $SHADOW_JAIL overrides it. ""
// when there is none.
//
// Tests exec it as the unprivileged user too, who may not reach a clone
// in a private directory (a 0700 temporary dir: fork/exec ... permission
// denied), so it runs from a copy in a world-readable directory of its
// own, named by its content.
func JailTool() string {
	if p := os.Getenv("SHADOW_JAIL"); p != "" {
		return p
	}
	dir, err := os.Getwd()
	for err == nil {
		p := filepath.Join(dir, "test", "tools", "jail")
		if _, serr := os.Stat(p); serr == nil {
			return reachable(p)
		}
		// The repository's top (.git) ends the walk: nothing above it is the project's.
		if _, serr := os.Lstat(filepath.Join(dir, ".git")); serr == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

var jailCopy struct {
	sync.Once
	path string
}

// reachable is a copy of the script p that every user may execute (p
// itself when that copy cannot be made).
func reachable(p string) string {
	jailCopy.Do(func() {
		jailCopy.path = p
		b, err := os.ReadFile(p)
		if err != nil {
			return
		}
		sum := sha256.Sum256(b)
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("shadow-test-jail-%d-%x", os.Geteuid(), sum[:6]))
		dst := filepath.Join(dir, "jail")
		if got, err := os.ReadFile(dst); err == nil && bytes.Equal(got, b) {
			jailCopy.path = dst
			return
		}
		if os.MkdirAll(dir, 0o755) != nil || os.Chmod(dir, 0o755) != nil {
			return
		}
		tmp := dst + ".new" + strconv.Itoa(os.Getpid())
		if os.WriteFile(tmp, b, 0o755) == nil && os.Chmod(tmp, 0o755) == nil && os.Rename(tmp, dst) == nil {
			jailCopy.path = dst
		}
	})
	return jailCopy.path
}
