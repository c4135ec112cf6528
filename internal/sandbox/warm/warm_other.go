//go:build !unix

package warm

import (
	"errors"
	"io/fs"
	"time"
)

// shadow runs hypotheses on Linux and macOS only; elsewhere the package
// builds (so vet and the build work on any OS) and every lock fails, so
// no layer is ever stacked or fed.

var errBusy = errors.New("in use by another shadow run")

func flock(path string, exclusive, nonBlock bool) (release func(), err error) {
	return nil, errors.New("warm layer: not supported on this OS")
}

func setLinkTime(link string, t time.Time)     {}
func isWhiteout(p string, fi fs.FileInfo) bool { return false }
func isOpaque(p string) bool                   { return false }
func stripOverlayXattrs(p string) bool         { return true }
func syncFS(dir string) error                  { return nil }
func nlink(fi fs.FileInfo) uint64              { return 1 }
