//go:build unix

package inplace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/shadow-dev/shadow/snap"
)

// A journal is the one record shadow acts on without being asked: the
// next run or `shadow gc` writes its contents into the checkout. So a
// journal is verified whole before anything of it is used, and refused
// (ForgedError, never acted on) when shadow did not write it: its
// manifest carries an HMAC under the state dir's integrity key
// (snap.LoadKey), and every path, blob, trash name and the workspace are
// checked as if an attacker had written them: the MAC is what tells
// shadow's journals from planted ones, the checks are what make a bug in
// shadow's own writing fail safe.

// macDomain separates journal MACs from other records' (snap.MAC).
const macDomain = "shadow.inplace-journal"

// envelope is the manifest on disk: the journal's JSON, byte for byte as
// MACed, and the MAC.
type envelope struct {
	MAC     string          `json:"mac"`
	Journal json.RawMessage `json:"journal"`
}

// seal is the manifest's bytes: the journal and its MAC.
func (j *Journal) seal() ([]byte, error) {
	if len(j.key) == 0 {
		return nil, errors.New("no integrity key")
	}
	body, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	// Not indented: an indenting encoder would re-indent the raw body,
	// and the MAC is of its exact bytes.
	return json.Marshal(envelope{MAC: snap.MAC(j.key, macDomain, body), Journal: body})
}

// ForgedError is a journal shadow did not write, or one changed since:
// it is never acted on, and kept for the user to look at.
type ForgedError struct {
	Dir string
	Why string
}

func (e *ForgedError) Error() string {
	return fmt.Sprintf("refusing the in-place journal %s: %s. Nothing was restored from it and nothing was changed. "+
		"shadow did not write it as it is (or it was changed since); look at it, then remove it (rm -r %s)", e.Dir, e.Why, e.Dir)
}

var (
	idRe    = regexp.MustCompile(`^[0-9a-f]{12}$`)
	blobRe  = regexp.MustCompile(`^blob-[0-9]{1,9}$`)
	trashRe = regexp.MustCompile(`^t-[0-9]{1,9}$`)
	wsDirRe = regexp.MustCompile(`-([0-9a-f]{12})$`)
)

// readJournal loads and verifies the committed journal in stateDir, or
// nil when there is none. workspace, when not empty, must be the
// journal's.
func readJournal(stateDir, workspace string) (*Journal, error) {
	dir := JournalDir(stateDir)
	forged := func(format string, a ...any) error { return &ForgedError{Dir: dir, Why: fmt.Sprintf(format, a...)} }
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, forged("it is a %s, not a directory", fi.Mode().Type())
	}
	if why := snap.OwnedByMe(fi); why != "" {
		return nil, forged("the directory is %s", why)
	}
	mp := filepath.Join(dir, manifest)
	mfi, err := os.Lstat(mp)
	if errors.Is(err, fs.ErrNotExist) {
		// The manifest goes first when a journal is removed: what is left
		// is the rest of one already replayed, unless its trash still
		// holds a directory.
		if ents, _ := os.ReadDir(filepath.Join(dir, "trash")); len(ents) > 0 {
			return nil, forged("it has no manifest but its trash holds %d entr(y/ies): restore them by hand", len(ents))
		}
		return &Journal{dir: dir}, nil
	}
	if err != nil {
		return nil, err
	}
	if !mfi.Mode().IsRegular() {
		return nil, forged("its manifest is a %s", mfi.Mode().Type())
	}
	if why := snap.OwnedByMe(mfi); why != "" {
		return nil, forged("its manifest is %s", why)
	}
	b, err := os.ReadFile(mp)
	if err != nil {
		return nil, err
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil || len(env.Journal) == 0 {
		return nil, forged("its manifest is not a journal this shadow writes")
	}
	key, err := snap.LoadKey(stateDir, false)
	if err != nil {
		return nil, forged("the state dir's integrity key cannot be read to verify it (%v)", err)
	}
	if !snap.VerifyMAC(key, macDomain, env.Journal, env.MAC) {
		return nil, forged("its MAC does not match (written by something other than shadow, or changed)")
	}
	var j Journal
	if err := json.Unmarshal(env.Journal, &j); err != nil {
		return nil, forged("unreadable: %v", err)
	}
	j.dir, j.key = dir, key
	if err := j.check(stateDir, workspace); err != nil {
		return nil, forged("%v", err)
	}
	return &j, nil
}

// check verifies everything a replay would act on.
func (j *Journal) check(stateDir, workspace string) error {
	if j.Schema != schema {
		return fmt.Errorf("schema %q, this shadow knows %q", j.Schema, schema)
	}
	if !idRe.MatchString(j.ID) {
		return fmt.Errorf("bad id %q", j.ID)
	}
	ws := j.Workspace
	if !filepath.IsAbs(ws) || filepath.Clean(ws) != ws || ws == "/" {
		return fmt.Errorf("workspace %q is not a clean absolute path", ws)
	}
	if workspace != "" && ws != workspace {
		return fmt.Errorf("it belongs to %s, not %s", ws, workspace)
	}
	// snap.Store.WorkspaceDir names a workspace's dir after a hash of
	// its path: a journal in another workspace's dir is not its own.
	// Without a workspace to compare with (shadow gc), that name is the
	// only tie between the journal and its workspace.
	if m := wsDirRe.FindStringSubmatch(filepath.Base(stateDir)); m != nil {
		sum := sha256.Sum256([]byte(ws))
		if hex.EncodeToString(sum[:6]) != m[1] {
			return fmt.Errorf("it names workspace %s, whose records are not in %s", ws, stateDir)
		}
	} else if workspace == "" {
		return fmt.Errorf("%s is not a workspace's state dir, so the workspace %s it names cannot be checked", stateDir, ws)
	}
	if fi, err := os.Lstat(ws); err != nil || !fi.IsDir() {
		return fmt.Errorf("its workspace %s is gone or not a directory", ws)
	}
	seen := map[string]bool{}
	for _, e := range j.Entries {
		if msg := checkRel(e.Path); msg != "" {
			return fmt.Errorf("entry %q: %s", e.Path, msg)
		}
		if err := checkParents(ws, e.Path); err != nil {
			return fmt.Errorf("entry %q: %v (a replay would write through it)", e.Path, err)
		}
		if seen[e.Path] {
			return fmt.Errorf("entry %q twice", e.Path)
		}
		seen[e.Path] = true
		switch {
		case e.Delete && e.Wrote.Kind != "absent":
			return fmt.Errorf("entry %q: a delete that wrote a %s", e.Path, e.Wrote.Kind)
		case !e.Delete && (e.Wrote.Kind != "file" || e.Orig.Kind == "dir"):
			return fmt.Errorf("entry %q: a write of a %s over a %s", e.Path, e.Wrote.Kind, e.Orig.Kind)
		case e.Orig.Kind == "dir" && !e.Delete:
			return fmt.Errorf("entry %q: a directory that is not a delete", e.Path)
		}
		if err := j.checkNode(e.Orig, true); err != nil {
			return fmt.Errorf("entry %q: %v", e.Path, err)
		}
		if err := j.checkNode(e.Wrote, false); err != nil {
			return fmt.Errorf("entry %q: %v", e.Path, err)
		}
	}
	for _, d := range j.Created {
		if msg := checkRel(d); msg != "" {
			return fmt.Errorf("created dir %q: %s", d, msg)
		}
		if err := checkParents(ws, d); err != nil {
			return fmt.Errorf("created dir %q: %v", d, err)
		}
	}
	for _, d := range j.Parents {
		if d.Path != "." {
			if msg := checkRel(d.Path); msg != "" {
				return fmt.Errorf("parent dir %q: %s", d.Path, msg)
			}
		}
	}
	return nil
}

// checkNode verifies one recorded state. An original file's blob must be
// a regular file of this user in the journal dir with the recorded size
// and hash: a replay writes exactly those bytes into the checkout.
func (j *Journal) checkNode(n Node, orig bool) error {
	if n.Mode&^modeBits != 0 {
		return fmt.Errorf("mode %v has more than permission bits", n.Mode)
	}
	switch n.Kind {
	case "absent":
	case "file":
		if !orig {
			if len(n.SHA256) != 64 {
				return errors.New("no hash of what was written")
			}
			return nil
		}
		if !blobRe.MatchString(n.Blob) {
			return fmt.Errorf("blob name %q", n.Blob)
		}
		p := filepath.Join(j.dir, n.Blob)
		fi, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("blob %s: %v", n.Blob, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("blob %s is a %s", n.Blob, fi.Mode().Type())
		}
		if why := snap.OwnedByMe(fi); why != "" {
			return fmt.Errorf("blob %s is %s", n.Blob, why)
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		h := sha256.New()
		size, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		if size != n.Size || hex.EncodeToString(h.Sum(nil)) != n.SHA256 {
			return fmt.Errorf("blob %s does not hold the recorded bytes", n.Blob)
		}
	case "symlink":
		if !orig || n.Target == "" || strings.ContainsRune(n.Target, 0) {
			return fmt.Errorf("bad symlink %q", n.Target)
		}
	case "dir":
		if !orig {
			return errors.New("a directory as what was written")
		}
		if !trashRe.MatchString(n.Trash) || (n.TrashIn != trashState && n.TrashIn != trashGit) {
			return fmt.Errorf("bad trash %q in %q", n.Trash, n.TrashIn)
		}
		for _, c := range n.Children {
			if msg := checkRel(c.Rel); msg != "" {
				return fmt.Errorf("entry %q of the directory: %s", c.Rel, msg)
			}
		}
	default:
		return fmt.Errorf("unknown kind %q", n.Kind)
	}
	return nil
}

// checkRel says why rel is not a workspace-relative path a hypothesis
// could have written ("" when it is): '/'-separated, no empty, "." or
// ".." component, no control characters or backslashes, not absolute,
// not into .git.
func checkRel(rel string) string {
	switch {
	case rel == "":
		return "empty path"
	case strings.HasPrefix(rel, "/"):
		return "absolute path"
	case strings.ContainsAny(rel, "\\\x00"):
		return "backslash or NUL in the path"
	}
	for _, r := range rel {
		if r < 0x20 || r == 0x7f {
			return "control character in the path"
		}
	}
	for _, c := range strings.Split(rel, "/") {
		switch c {
		case "", ".", "..":
			return "empty, . or .. component"
		}
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return "a path into .git"
	}
	return ""
}
