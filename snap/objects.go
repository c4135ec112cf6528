package snap

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Objects is a workspace's content-addressed file store:
// objects/sha256/ab/cdef... holds the bytes whose SHA-256 is abcdef...
// A file recorded by many runs (the same hypothesis re-run, a base carried
// along a chain, an unchanged original) is stored once.
type Objects struct{ Dir string }

// Objects returns the object store of workspace ws.
func (s Store) Objects(ws string) Objects {
	return Objects{Dir: filepath.Join(s.WorkspaceDir(ws), "objects")}
}

// Hash is the hex SHA-256 of b.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (o Objects) path(sum string) string {
	return filepath.Join(o.Dir, "sha256", sum[:2], sum[2:])
}

// Put stores b and returns its hash. Writing is a temp file and a rename,
// so concurrent writers of the same content both succeed and a reader never
// sees half an object. An object already present is touched instead, which
// keeps it from the pruner's grace period.
func (o Objects) Put(b []byte) (string, error) {
	sum := Hash(b)
	p := o.path(sum)
	now := time.Now()
	if err := os.Chtimes(p, now, now); err == nil {
		return sum, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	if err := WriteFileAtomic(p, b); err != nil {
		return "", err
	}
	return sum, nil
}

// Get reads the object sum and checks its hash.
func (o Objects) Get(sum string) ([]byte, error) {
	if len(sum) != 64 {
		return nil, fmt.Errorf("bad object name %q", sum)
	}
	b, err := os.ReadFile(o.path(sum))
	if err != nil {
		return nil, fmt.Errorf("recorded file %s: %w", sum[:12], err)
	}
	if Hash(b) != sum {
		return nil, fmt.Errorf("recorded file %s is damaged (hash mismatch)", sum[:12])
	}
	return b, nil
}

// lock takes a flock on the workspace's objects lock file: shared for
// writers of objects and the records naming them, exclusive for the
// pruner, which must not delete an object a run is about to reference.
func (o Objects) lock(exclusive bool) (func(), error) {
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(o.Dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(f, exclusive); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
