//go:build unix && !linux

package inplace

import (
	"os"
	"path/filepath"
	"syscall"
)

// mountOf is st_dev of p; no mount ids here (0).
func mountOf(p string) (dev uint64, mnt uint64, err error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Dev), 0, nil
}

// syncFS fsyncs each file directly in dir (no syncfs(2) here).
func syncFS(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
