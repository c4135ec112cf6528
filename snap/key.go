package snap

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// KeyName is the file in a workspace's state dir holding the secret that
// authenticates what shadow writes there (in-place journals, run
// integrity records). A journal or record whose MAC does not verify was
// not written by shadow, or was changed since, and is never acted on.
//
// What this buys: a command that cannot read the state dir (overlay mode
// masks it with an empty tmpfs) cannot forge a record that verifies, even
// if it finds some other way to write one. A command that runs as the
// user with the state dir in view (copy and in-place modes) can read the
// key too; there the MAC catches accidents and tampering by anything that
// does not know the key, not a hostile command that does. The run also
// re-checks its own records against what it holds in memory before it
// seals them (see Run.Finish), which covers tampering during that run.
const KeyName = "integrity.key"

const keySize = 32

// KeyError is a key that exists but cannot be trusted (wrong owner, mode
// or size) or cannot be read.
type KeyError struct {
	Path string
	Msg  string
	// Damaged: the key is there but not one shadow made (its content,
	// type, mode or owner), not merely unreadable: LoadKeyReplacing
	// replaces it.
	Damaged bool
}

func (e *KeyError) Error() string { return fmt.Sprintf("integrity key %s: %s", e.Path, e.Msg) }

// LoadKey returns the integrity key of the state dir dir, creating it
// when create is set and it does not exist. The key must be a regular
// file (not a symlink) owned by this user, mode 0600, of the right size.
func LoadKey(dir string, create bool) ([]byte, error) {
	p := filepath.Join(dir, KeyName)
	k, err := readKey(p)
	if err == nil || !create || !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &KeyError{Path: p, Msg: err.Error()}
	}
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, &KeyError{Path: p, Msg: err.Error()}
	}
	// Written whole under a temporary name, then linked into place: two
	// processes creating it at once agree on whichever link won.
	tmp, err := os.CreateTemp(dir, "."+KeyName+".tmp-*")
	if err != nil {
		return nil, &KeyError{Path: p, Msg: err.Error()}
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write([]byte(hex.EncodeToString(key)))
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, &KeyError{Path: p, Msg: err.Error()}
	}
	if err := os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, &KeyError{Path: p, Msg: err.Error()}
	}
	return readKey(p)
}

// LoadKeyReplacing is LoadKey(dir, true), except that a key found
// damaged (a *KeyError with Damaged: its content, type, mode or owner) is
// moved aside, to integrity.key.damaged-TIME, and a new one made, so the
// run that found it records. Every record and journal made under the old
// key then no longer verifies and is refused, saying the key was
// replaced (ReplacedKeyNote): the old records are refused, never the new
// run. replaced is where the old key went, "" when none was replaced.
func LoadKeyReplacing(dir string) (key []byte, replaced string, err error) {
	key, err = LoadKey(dir, true)
	var ke *KeyError
	if err == nil || !errors.As(err, &ke) || !ke.Damaged {
		return key, "", err
	}
	p := filepath.Join(dir, KeyName)
	aside := p + ".damaged-" + time.Now().UTC().Format("20060102T150405.000000000")
	if rerr := os.Rename(p, aside); rerr != nil {
		return nil, "", fmt.Errorf("%w; moving it aside failed too: %v (remove it by hand: records made under it cannot be verified anyway)", err, rerr)
	}
	key, err = LoadKey(dir, true)
	return key, aside, err
}

// ReplacedKeyNote is what a record that does not verify adds when the
// state dir's key was replaced (LoadKeyReplacing): the likely reason.
func ReplacedKeyNote(dir string) string {
	old, _ := filepath.Glob(filepath.Join(dir, KeyName+".damaged-*"))
	if len(old) == 0 {
		return ""
	}
	return fmt.Sprintf("; the integrity key was found damaged and replaced (the old one is %s): records made before cannot be verified", old[len(old)-1])
}

func readKey(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, &KeyError{Path: p, Msg: err.Error()}
	}
	if !fi.Mode().IsRegular() {
		return nil, &KeyError{Path: p, Msg: "not a regular file (" + fi.Mode().Type().String() + ")", Damaged: true}
	}
	if fi.Mode().Perm() != 0o600 {
		return nil, &KeyError{Path: p, Msg: fmt.Sprintf("mode %04o, want 0600", fi.Mode().Perm()), Damaged: true}
	}
	if msg := ownedByMe(fi); msg != "" {
		return nil, &KeyError{Path: p, Msg: msg, Damaged: true}
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, &KeyError{Path: p, Msg: err.Error()}
	}
	key, err := hex.DecodeString(string(b))
	if err != nil || len(key) != keySize {
		return nil, &KeyError{Path: p, Msg: "damaged (want 64 hex digits)", Damaged: true}
	}
	return key, nil
}

// MAC is the hex HMAC-SHA256 of data under key, in the domain what (so a
// MAC made for one kind of record never verifies another).
func MAC(key []byte, what string, data []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(what))
	m.Write([]byte{0})
	m.Write(data)
	return hex.EncodeToString(m.Sum(nil))
}

// VerifyMAC reports whether mac is MAC(key, what, data), in constant time.
func VerifyMAC(key []byte, what string, data []byte, mac string) bool {
	want, err := hex.DecodeString(mac)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(what))
	m.Write([]byte{0})
	m.Write(data)
	return hmac.Equal(m.Sum(nil), want)
}

// OwnedByMe says why fi (from Lstat) cannot be trusted as something this
// user's shadow wrote: another owner, or writable by group or others. ""
// when it can. On systems without Unix ownership only the mode is checked.
func OwnedByMe(fi fs.FileInfo) string {
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Sprintf("writable by others (mode %04o)", fi.Mode().Perm())
	}
	return ownedByMe(fi)
}
