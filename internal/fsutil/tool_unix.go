//go:build unix

package fsutil

import (
	"fmt"
	"os"
	"syscall"
)

// rootOnly reports whether only root can change p: owned by uid 0 and not
// writable by group or others.
func rootOnly(p string) (bool, string) {
	fi, err := os.Lstat(p)
	if err != nil {
		return false, err.Error()
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false, "cannot read the owner of " + p
	}
	if st.Uid != 0 {
		return false, fmt.Sprintf("%s is owned by uid %d, not root", p, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return false, fmt.Sprintf("%s is writable by its group or others (%v)", p, fi.Mode().Perm())
	}
	return true, ""
}
