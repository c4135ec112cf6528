package downloads

import (
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"time"
)

type ioReadCloser = io.ReadCloser

type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

type memInfo struct{ f memFile }

func (i memInfo) Name() string       { return filepath.Base(i.f.name) }
func (i memInfo) Size() int64        { return int64(len(i.f.data)) }
func (i memInfo) Mode() os.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

func hexOf(b []byte) string { return hex.EncodeToString(b) }

func countFiles(root string) int {
	n := 0
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// countAll counts everything under root, directories too (a refused
// entry must not leave even one).
func countAll(root string) int {
	n := -1
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		n++
		return nil
	})
	return n
}
