package downloads

import (
	"crypto/sha512"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxTarball bounds an npm tarball shadow copies out to check (npm's
// registry refuses packages far smaller).
const maxTarball = 1 << 30

// NPMCache promotes into dst (a directory laid out as npm's cache is:
// _cacache/content-v2/ALGO/…; scratch as for GoModCache) the tarballs src, what a job wrote to its
// npm cache, holds whose sha512 a package-lock.json of the checkout names,
// where neither dst nor any of have holds them yet. cacache stores a
// blob at content-v2/sha512/HEX[0:2]/HEX[2:4]/HEX[4:] by its own digest,
// and npm, installing from a lockfile whose entry has both resolved and
// integrity, reads the tarball by that digest alone (pacote's
// tarballFromCache, cacache.get.stream.byDigest), so the blob is all
// npm ci needs. The index-v5 entries that map a URL to a blob carry the
// registry's HTTP headers, which no lockfile vouches for: none is kept,
// and npm makes its own again when it next fetches the URL.
func (s *Sums) NPMCache(src, dst, scratch string, have ...string) (Count, error) {
	var c Count
	if s == nil || len(s.npm) == 0 {
		return c, nil
	}
	top := filepath.Join(src, "_cacache", "content-v2", "sha512")
	if _, err := os.Lstat(top); err != nil {
		return c, nil
	}
	var ferr error
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		r, _ := filepath.Rel(top, p)
		parts := strings.Split(filepath.ToSlash(r), "/")
		digest := strings.Join(parts, "")
		if len(parts) != 3 || len(parts[0]) != 2 || len(parts[1]) != 2 || len(digest) != 128 || !s.npm[digest] {
			c.Refused++
			return nil
		}
		rel := filepath.Join("_cacache", "content-v2", "sha512", parts[0], parts[1], parts[2])
		if exists(rel, append([]string{dst}, have...)...) {
			return nil
		}
		to := filepath.Join(dst, rel)
		tmp, err := copyOut(p, scratch, maxTarball)
		if err != nil {
			c.Refused++
			return nil
		}
		sum, n, err := sha512File(tmp)
		if err != nil {
			os.Remove(tmp)
			ferr = err
			return filepath.SkipAll
		}
		if sum != digest {
			os.Remove(tmp)
			c.Refused++
			return nil
		}
		ok, err := settle(tmp, to)
		if err != nil {
			ferr = err
			return filepath.SkipAll
		}
		if ok {
			c.Promoted++
			c.Bytes += n
		}
		return nil
	})
	return c, ferr
}

func sha512File(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha512.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
