package downloads

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Count is what one promotion did.
type Count struct {
	// Promoted: files kept (a module's zip or go.mod, an npm tarball),
	// Bytes theirs; Refused: those no lockfile of the checkout vouches
	// for, or whose bytes do not match the hash it names.
	Promoted, Refused int
	Bytes             int64
}

func (c *Count) Add(o Count) {
	c.Promoted += o.Promoted
	c.Refused += o.Refused
	c.Bytes += o.Bytes
}

// copyOut copies the regular file src (a symlink, device or anything else
// is refused: a cache entry is none of those) into a new temporary file
// in dir (scratch space beside the destination, on its filesystem, so
// that nothing refused leaves even a directory behind), at most max
// bytes, and returns its path. Its bytes are what the
// caller hashes, so nothing the job can still change is ever trusted.
func copyOut(src, dir string, max int64) (string, error) {
	fi, err := os.Lstat(src)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", src)
	}
	if fi.Size() > max {
		return "", fmt.Errorf("%s: %d bytes, more than the %d a download may have", src, fi.Size(), max)
	}
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out, err := os.CreateTemp(dir, ".check-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, io.LimitReader(in, max+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if fi, serr := os.Stat(out.Name()); serr == nil && fi.Size() > max {
			err = fmt.Errorf("%s grew past %d bytes", src, max)
		}
	}
	if err != nil {
		os.Remove(out.Name())
		return "", err
	}
	return out.Name(), nil
}

// settle makes a checked temporary file tmp the file at to, read-only as
// the tools leave their cache entries, unless one is there already.
func settle(tmp, to string) (bool, error) {
	_ = os.Chmod(tmp, 0o444)
	if _, err := os.Lstat(to); err == nil {
		os.Remove(tmp)
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		os.Remove(tmp)
		return false, err
	}
	if err := os.Rename(tmp, to); err != nil {
		os.Remove(tmp)
		return false, err
	}
	return true, nil
}

// exists: any of dirs holds rel already.
func exists(rel string, dirs ...string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(d, rel)); err == nil {
			return true
		}
	}
	return false
}
