package fsutil

import (
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to a temporary file beside path, with mode,
// and renames it over path: a reader sees the old content or the new, never
// a part (rename(2) replaces atomically within a filesystem). With sync,
// the file is fsynced before the rename and the directory after it, so
// the new content survives a crash once WriteFileAtomic returns.
func WriteFileAtomic(path string, data []byte, mode os.FileMode, sync bool) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	// CreateTemp makes it 0600; the umask does not apply to chmod.
	if err = tmp.Chmod(mode.Perm()); err != nil {
		return err
	}
	if sync {
		if err = tmp.Sync(); err != nil {
			return err
		}
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if sync {
		d, derr := os.Open(dir)
		if derr != nil {
			return derr
		}
		defer d.Close()
		return d.Sync()
	}
	return nil
}
