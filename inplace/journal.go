//go:build unix

package inplace

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/shadow-dev/shadow/internal/fsutil"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
	"github.com/shadow-dev/shadow/snap"
)

const (
	manifest = "journal.json"
	schema   = "shadow.inplace-journal/v1"
)

// Journal is what the checkout held before a hypothesis was written into
// it: enough to put every byte back. It is written and fsynced, whole,
// before anything in the checkout changes, and removed only after every
// file is back.
type Journal struct {
	Schema    string    `json:"schema"`
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Hyp       string    `json:"hyp"`
	PID       int       `json:"pid"`
	Started   time.Time `json:"started"`
	// CommandStarted is set (and synced) just before the command starts.
	// From then on build tools may have compiled the hypothesis's files, so
	// restored files get a fresh mtime (an old one would make make, cargo
	// and ninja keep artifacts built from the hypothesis); before that,
	// the original mtimes are put back too.
	CommandStarted bool `json:"command_started"`
	// Helper is the process helper the command runs under (pid and start
	// time, in boot BootID): a replay after a crash waits for it to have
	// ended the command's tree before it restores anything.
	Helper  *reaper.ProcID `json:"helper,omitempty"`
	BootID  string         `json:"boot_id,omitempty"`
	Entries []Entry        `json:"entries"`
	Created []string       `json:"created_dirs"` // directories the hypothesis needed, parents first
	Parents []DirStamp     `json:"parents"`      // existing directories whose entries change, with their mtimes

	dir string // the journal directory
	key []byte // the state dir's integrity key: the manifest's MAC
}

// Entry is one path the hypothesis writes or deletes.
type Entry struct {
	Path   string `json:"path"` // workspace-relative, '/'-separated
	Delete bool   `json:"delete,omitempty"`
	Orig   Node   `json:"orig"`
	Wrote  Node   `json:"wrote"` // what the hypothesis left there (Kind "absent" for a delete)
}

// Node is the state of one path: absent, a file (its bytes in Blob), a
// symlink (its target) or, for a deleted directory, its whole tree.
type Node struct {
	Kind   string      `json:"kind"` // absent, file, symlink, dir
	Rel    string      `json:"rel,omitempty"`
	Mode   os.FileMode `json:"mode,omitempty"` // permission, setuid, setgid and sticky bits
	MTime  int64       `json:"mtime_ns,omitempty"`
	Target string      `json:"target,omitempty"`
	Blob   string      `json:"blob,omitempty"`
	SHA256 string      `json:"sha256,omitempty"`
	Size   int64       `json:"size,omitempty"`
	// A deleted directory: its entries (parents first, Rel relative to
	// it; no contents, the directory itself is kept whole) and where it
	// is moved aside to (trash.go).
	Children []Node `json:"children,omitempty"`
	Trash    string `json:"trash,omitempty"`    // its name in the trash, t-N
	TrashIn  string `json:"trash_in,omitempty"` // which trash: "state" or "git"
}

// DirStamp is a directory's mtime.
type DirStamp struct {
	Path  string `json:"path"`
	MTime int64  `json:"mtime_ns"`
}

const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// JournalDir is where the journal of the workspace whose state dir is
// stateDir lives.
func JournalDir(stateDir string) string { return filepath.Join(stateDir, JournalName) }

func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// abs is the checkout path of a workspace-relative path.
func abs(ws, rel string) string { return filepath.Join(ws, filepath.FromSlash(rel)) }

// checkParents refuses a path whose existing ancestors (inside the
// workspace) are not plain directories: writing through a symlinked
// parent would write outside the checkout.
func checkParents(ws, rel string) error {
	parts := strings.Split(rel, "/")
	cur := ws
	for _, p := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s: a parent is not a directory (%s)", rel, fi.Mode().Type())
		}
	}
	return nil
}

// capture records the current state of rel, copying a file's bytes (or a
// directory tree's files) into the journal dir.
func capture(jdir, ws, rel string, n *int) (Node, error) {
	p := abs(ws, rel)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Node{Kind: "absent"}, nil
	}
	if err != nil {
		return Node{}, err
	}
	return captureInfo(jdir, p, fi, n)
}

func captureInfo(jdir, p string, fi fs.FileInfo, n *int) (Node, error) {
	nd := Node{Mode: fi.Mode() & modeBits, MTime: fi.ModTime().UnixNano()}
	switch {
	case fi.Mode().IsRegular():
		nd.Kind = "file"
		*n++
		nd.Blob = fmt.Sprintf("blob-%d", *n)
		sum, size, err := copyToBlob(p, filepath.Join(jdir, nd.Blob))
		if err != nil {
			return Node{}, err
		}
		nd.SHA256, nd.Size = sum, size
	case fi.Mode()&fs.ModeSymlink != 0:
		nd.Kind = "symlink"
		t, err := os.Readlink(p)
		if err != nil {
			return Node{}, err
		}
		nd.Target = t
	case fi.IsDir():
		// Moved aside whole, not copied: begin lists its entries and
		// picks its trash.
		nd.Kind = "dir"
	default:
		return Node{}, fmt.Errorf("%s is a %s: in-place mode can only journal files, symlinks and directories", p, fi.Mode().Type())
	}
	return nd, nil
}

func copyToBlob(src, dst string) (string, int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	// Not synced one by one: begin makes them all durable with one
	// syncFS before the journal is committed.
	size, err := io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return hex.EncodeToString(h.Sum(nil)), size, err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// writeManifest writes the journal's manifest atomically and durably,
// with its MAC (verify.go).
func (j *Journal) writeManifest() error {
	b, err := j.seal()
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(filepath.Join(j.dir, manifest), b, 0o600, true)
}

// begin journals everything job.Hyp will change and commits the journal:
// it is built in a temporary directory, synced, and renamed into place, so
// a journal either exists whole or not at all. Nothing in the checkout has
// changed when begin returns.
func begin(stateDir string, job engine.Job) (*Journal, error) {
	ws := job.Workspace
	j := &Journal{Schema: schema, ID: newID(), Workspace: ws, Hyp: job.Hyp.Name, PID: os.Getpid(),
		Started: time.Now().UTC(), BootID: reaper.BootID(), Created: []string{}, Parents: []DirStamp{}}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	key, err := snap.LoadKey(stateDir, true)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j.key = key
	final := JournalDir(stateDir)
	if _, err := os.Lstat(final); err == nil {
		return nil, fmt.Errorf("journal %s already exists: run `shadow gc`", final)
	}
	tmpDir := filepath.Join(stateDir, JournalName+".tmp-"+j.ID)
	if err := os.Mkdir(tmpDir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmpDir)
		}
	}()
	j.dir = tmpDir
	n := 0
	created := map[string]bool{}
	parents := map[string]bool{}
	addParent := func(rel string) {
		d := path.Dir(rel)
		for {
			if created[d] {
				return
			}
			if _, err := os.Lstat(abs(ws, d)); err == nil {
				if !parents[d] {
					parents[d] = true
				}
				return
			}
			created[d] = true
			j.Created = append(j.Created, d)
			if d == "." {
				return
			}
			d = path.Dir(d)
		}
	}
	for _, f := range job.Hyp.Files {
		if err := checkParents(ws, f.Path); err != nil {
			return nil, err
		}
		orig, err := capture(tmpDir, ws, f.Path, &n)
		if err != nil {
			return nil, fmt.Errorf("journal %s: %w", f.Path, err)
		}
		if orig.Kind == "dir" {
			return nil, fmt.Errorf("%s is a directory in the checkout: it cannot be replaced by a file", f.Path)
		}
		sum := sha256.Sum256(f.Content)
		j.Entries = append(j.Entries, Entry{Path: f.Path, Orig: orig, Wrote: Node{Kind: "file", Mode: f.Mode & modeBits,
			SHA256: hex.EncodeToString(sum[:]), Size: int64(len(f.Content))}})
		addParent(f.Path)
	}
	for _, p := range job.Hyp.Deletes {
		if err := checkParents(ws, p); err != nil {
			return nil, err
		}
		orig, err := capture(tmpDir, ws, p, &n)
		if err != nil {
			return nil, fmt.Errorf("journal %s: %w", p, err)
		}
		if orig.Kind == "dir" {
			if orig.TrashIn, err = j.pickTrash(tmpDir, p); err != nil {
				return nil, err
			}
			orig.Trash = fmt.Sprintf("t-%d", len(j.Entries))
			if orig.Children, err = listTree(abs(ws, p)); err != nil {
				return nil, fmt.Errorf("journal %s: %w", p, err)
			}
		}
		j.Entries = append(j.Entries, Entry{Path: p, Delete: true, Orig: orig, Wrote: Node{Kind: "absent"}})
		if orig.Kind != "absent" {
			parents[path.Dir(p)] = true
		}
	}
	// Created dirs were found child first; make them parents first.
	sort.Slice(j.Created, func(a, b int) bool { return depth(j.Created[a]) < depth(j.Created[b]) })
	for d := range parents {
		if fi, err := os.Lstat(abs(ws, d)); err == nil {
			j.Parents = append(j.Parents, DirStamp{Path: d, MTime: fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(j.Parents, func(a, b int) bool { return j.Parents[a].Path < j.Parents[b].Path })
	crashAt("mid-journal")
	if err := syncFS(tmpDir); err != nil {
		return nil, fmt.Errorf("journal: sync the originals: %w", err)
	}
	if err := j.writeManifest(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if err := os.Rename(tmpDir, final); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if err := syncDir(stateDir); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	ok = true
	j.dir = final
	return j, nil
}

func depth(p string) int {
	if p == "." {
		return 0
	}
	return strings.Count(p, "/") + 1
}

// tmpName is the name of the temporary file beside rel used to write
// (suffix "") or restore (suffix "r") it; it carries the journal id, so a
// crash's leftovers are found and removed by the replay.
func (j *Journal) tmpName(rel, suffix string) string {
	p := abs(j.Workspace, rel)
	name := "." + filepath.Base(p) + ".shadow-" + j.ID + suffix
	return filepath.Join(filepath.Dir(p), name)
}

// apply writes the hypothesis into the checkout: each file to a temporary
// file beside its target, renamed over it (a symlink is replaced, not
// followed; a hard-linked twin keeps the old bytes), then the deletions.
func (j *Journal) apply(h engine.Hypothesis) error {
	for _, d := range j.Created {
		if err := os.Mkdir(abs(j.Workspace, d), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	for i, f := range h.Files {
		tmp := j.tmpName(f.Path, "")
		_ = os.Remove(tmp)
		out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		content := f.Content
		if i > 0 && os.Getenv(crashEnv) == "mid-write" {
			_, _ = out.Write(content[:len(content)/2])
			crashAt("mid-write")
		}
		_, err = out.Write(content)
		if err == nil {
			err = out.Chmod(f.Mode & modeBits)
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, abs(j.Workspace, f.Path))
		}
		if err != nil {
			os.Remove(tmp)
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	moved := 0
	for _, e := range j.Entries {
		if !e.Delete {
			continue
		}
		var err error
		switch e.Orig.Kind {
		case "absent":
		case "dir":
			// Never a recursive delete: killed half-way, it would leave
			// the tree half-empty (trash.go).
			if moved > 0 {
				crashAt("mid-delete")
			}
			err = j.moveAside(e)
			moved++
		default:
			err = os.Remove(abs(j.Workspace, e.Path))
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", e.Path, err)
		}
	}
	return nil
}

// observe is the state of rel in the checkout now, with a file's hash.
func observe(ws, rel string) (Node, error) {
	p := abs(ws, rel)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR) {
		return Node{Kind: "absent"}, nil
	}
	if err != nil {
		return Node{}, err
	}
	nd := Node{Mode: fi.Mode() & modeBits}
	switch {
	case fi.Mode().IsRegular():
		nd.Kind = "file"
		f, err := os.Open(p)
		if err != nil {
			return Node{}, err
		}
		h := sha256.New()
		nd.Size, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return Node{}, err
		}
		nd.SHA256 = hex.EncodeToString(h.Sum(nil))
	case fi.Mode()&fs.ModeSymlink != 0:
		nd.Kind = "symlink"
		nd.Target, _ = os.Readlink(p)
	case fi.IsDir():
		nd.Kind = "dir"
	default:
		nd.Kind = fi.Mode().Type().String()
	}
	return nd, nil
}

// same reports whether the observed state is n. Directories are not
// compared here: a deleted directory is restored, and its entries
// checked, by restoreDir.
func same(cur, n Node) bool {
	if cur.Kind != n.Kind {
		return false
	}
	switch n.Kind {
	case "file":
		return cur.SHA256 == n.SHA256 && cur.Mode == n.Mode
	case "symlink":
		return cur.Target == n.Target
	}
	return true
}
