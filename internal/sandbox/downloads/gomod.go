package downloads

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// GoModCache promotes into dst (a directory laid out as GOMODCACHE is)
// (scratch: a directory of its own on dst's filesystem, for the copies
// being checked) the module zips and go.mod files that src, what a job wrote to its
// module cache, holds under cache/download and go.sum names, where
// neither dst nor any of have (the layer's module cache) holds them yet:
//
//   - MOD/@v/VER.mod: kept when its h1 hash (dirhash.Hash1 over the one
//     file "go.mod", as cmd/go hashes it for go.sum's "VER/go.mod"
//     lines) is the one go.sum names;
//   - MOD/@v/VER.zip: kept when its h1 hash (dirhash.HashZip) is go.sum's
//     and it is a valid module zip (golang.org/x/mod/zip's rules), with
//     VER.ziphash (that hash, as cmd/go writes it) and the extracted
//     directory MOD@VER, unzipped here from the checked zip as cmd/go
//     unzips it (modzip.Unzip: files read-only). cmd/go takes a directory
//     with its .ziphash and no .partial file as complete
//     (modfetch.DownloadDir).
//
// Module paths and versions are case-encoded in the cache (module.
// EscapePath): an entry whose name is no encoding of a path and version,
// or not their one encoding, is refused.
func (s *Sums) GoModCache(src, dst, scratch string, have ...string) (Count, error) {
	var c Count
	if s == nil || len(s.mod) == 0 {
		return c, nil
	}
	top := filepath.Join(src, "cache", "download")
	if _, err := os.Lstat(top); err != nil {
		return c, nil
	}
	var ferr error
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(p)) != "@v" {
			return nil
		}
		name := d.Name()
		ext := path.Ext(name)
		if ext != ".zip" && ext != ".mod" {
			return nil // .info, list, .lock, .ziphash: made here or not at all
		}
		r, _ := filepath.Rel(top, filepath.Dir(filepath.Dir(p)))
		escPath, escVer := filepath.ToSlash(r), strings.TrimSuffix(name, ext)
		mod, err1 := module.UnescapePath(escPath)
		ver, err2 := module.UnescapeVersion(escVer)
		key := mod + " " + ver
		if ext == ".mod" {
			key += "/go.mod"
		}
		want, ok := s.mod[key]
		if err1 != nil || err2 != nil || !ok || reEscape(mod, ver) != escPath+"@"+escVer {
			c.Refused++
			return nil
		}
		rel := filepath.Join("cache", "download", filepath.FromSlash(escPath), "@v", name)
		if exists(rel, append([]string{dst}, have...)...) {
			return nil
		}
		var n int64
		if ext == ".mod" {
			n, err = promoteMod(p, filepath.Join(dst, rel), scratch, want)
		} else {
			n, err = promoteZip(p, dst, rel, scratch, module.Version{Path: mod, Version: ver}, escPath+"@"+escVer, want, have)
		}
		switch {
		case err != nil:
			ferr = err
			return filepath.SkipAll
		case n < 0:
			c.Refused++
		case n > 0:
			c.Promoted++
			c.Bytes += n
		}
		return nil
	})
	return c, ferr
}

func reEscape(mod, ver string) string {
	p, err1 := module.EscapePath(mod)
	v, err2 := module.EscapeVersion(ver)
	if err1 != nil || err2 != nil {
		return ""
	}
	return p + "@" + v
}

// goModHash is go.sum's hash of a go.mod file (cmd/go's modfetch.goModSum).
func goModHash(data []byte) (string, error) {
	return dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	})
}

// promoteMod keeps the go.mod file src at to when its hash is want. It
// returns the bytes kept, 0 when it was there already, -1 when refused;
// an error only for what went wrong on shadow's side.
func promoteMod(src, to, scratch, want string) (int64, error) {
	tmp, err := copyOut(src, scratch, modzip.MaxGoMod)
	if err != nil {
		return -1, nil
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		os.Remove(tmp)
		return 0, err
	}
	if h, err := goModHash(data); err != nil || h != want {
		os.Remove(tmp)
		return -1, nil
	}
	if ok, err := settle(tmp, to); err != nil || !ok {
		return 0, err
	}
	return int64(len(data)), nil
}

// promoteZip keeps the zip src at dst/rel, with its .ziphash and its
// extracted directory dst/dir, when its hash is want and it is a valid
// zip of m.
func promoteZip(src, dst, rel, scratch string, m module.Version, dir, want string, have []string) (int64, error) {
	to := filepath.Join(dst, rel)
	tmp, err := copyOut(src, scratch, modzip.MaxZipFile)
	if err != nil {
		return -1, nil
	}
	if h, err := dirhash.HashZip(tmp, dirhash.Hash1); err != nil || h != want {
		os.Remove(tmp)
		return -1, nil
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		os.Remove(tmp)
		return 0, err
	}
	if !exists(filepath.FromSlash(dir), append([]string{dst}, have...)...) {
		ok, err := unzip(tmp, filepath.Join(dst, filepath.FromSlash(dir)), scratch, m)
		switch {
		case err != nil:
			os.Remove(tmp)
			return 0, err
		case !ok:
			os.Remove(tmp)
			return -1, nil // not a valid module zip
		}
	}
	hashTo := strings.TrimSuffix(to, ".zip") + ".ziphash"
	if !exists(strings.TrimSuffix(rel, ".zip")+".ziphash", append([]string{dst}, have...)...) {
		if err := writeNew(hashTo, scratch, []byte(want)); err != nil {
			os.Remove(tmp)
			return 0, err
		}
	}
	if ok, err := settle(tmp, to); err != nil || !ok {
		return 0, err
	}
	return fi.Size(), nil
}

// unzip extracts the checked zip into a temporary directory in scratch,
// then renames it into place. false, nil: the zip breaks a module zip's
// rules (modzip.Unzip refused it).
func unzip(zipFile, to, scratch string, m module.Version) (bool, error) {
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp(scratch, ".unzip-*")
	if err != nil {
		return false, err
	}
	defer fsutil.RemoveTree(tmp)
	x := filepath.Join(tmp, "x")
	if err := modzip.Unzip(x, m, zipFile); err != nil {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return false, err
	}
	if err := os.Rename(x, to); err != nil && !os.IsExist(err) {
		return false, err
	}
	return true, nil
}

// writeNew writes data to a new file at to (read-only), through a
// temporary file and a rename, so no reader sees half of it.
func writeNew(to, scratch string, data []byte) error {
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(scratch, ".write-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		_, err = settle(f.Name(), to)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
