//go:build linux || darwin

package copy

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/shadow-dev/shadow/internal/fsutil"

	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

// The seal of copy mode (docs/modes.md, "copy"): where the kernel offers
// Landlock, the command may write only its own copy, a private TMPDIR and
// private caches (landlock.ScratchEnv); everything else (the checkout, the
// state dir, the sibling copies, $HOME, /tmp, /dev/shm, the whole system as
// root) is read-only to it, and it cannot signal, ptrace or reach the abstract
// sockets of anything outside its own domain (package landlock). The caches
// are the job's own, inside its copy's directory and removed with it, seeded
// with a copy of the workspace's home layer (Job.HomeLayer: what an earlier
// no-edit baseline left in its caches, internal/sandbox/warm); the baseline's
// own caches are kept (Job.KeepHome) to become the layer's next generation. So
// what a candidate writes there goes with the candidate: no later job, run or
// baseline reads it. The user's own caches are never written.

// sealed returns the Landlock policy and environment of one sealed job,
// or nil where the run is not sealed (no Landlock here and none
// required: the command runs as today, guarded against accidents only).
// release keeps the job's caches for the home layer when keepHome is set
// (called once the command's whole tree has ended).
func (s *Sandbox) sealed(dir, tree string, env []string, net bool, ports []uint16, homeLayer, keepHome string) (_ *landlock.Policy, _ []string, release func(), _ error) {
	none := func() {}
	if s.opts.NoSeal {
		return nil, env, none, nil
	}
	if s.abi == 0 {
		if s.opts.RequireSeal {
			// The helper refuses to start the command, with the reason.
			return &landlock.Policy{Required: true}, env, none, nil
		}
		return nil, env, none, nil
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil && !os.IsExist(err) {
		return nil, nil, none, err
	}
	cache := filepath.Join(dir, "cache")
	if err := seedCache(homeLayer, cache); err != nil {
		return nil, nil, none, fmt.Errorf("copy the home layer %s to %s: %w", homeLayer, cache, err)
	}
	env, err := landlock.ScratchEnv(env, tmp, cache)
	if err != nil {
		return nil, nil, none, err
	}
	release = none
	if keepHome != "" {
		release = func() {
			if err := os.MkdirAll(filepath.Dir(keepHome), 0o700); err == nil {
				_ = os.Rename(cache, keepHome)
			}
		}
	}
	write := append([]string{tree, tmp, cache}, s.opts.Writable...)
	// Not even readable: the running siblings' copies (their fixes) and
	// caches, and shadow's own dirs (its integrity key, records).
	hidden := append([]string{s.base}, s.opts.Exclude...)
	if s.opts.CacheDir != "" {
		hidden = append(hidden, s.opts.CacheDir)
	}
	return &landlock.Policy{Write: write, Hidden: hidden, Devices: landlock.DefaultDevices, Net: net, Ports: ports, Required: s.opts.RequireSeal}, env, release, nil
}

// seedCache makes cache a copy of the home layer's generation layer (""
// or missing: an empty one): directories and regular files only, with
// their modes and mtimes (Go trims its cache by mtime). A copy, never a
// hard link: a command may write a cache file in place (Go's index
// entries are), and through a link that write would reach the layer.
func seedCache(layer, cache string) error {
	if err := os.Mkdir(cache, 0o700); err != nil && !os.IsExist(err) {
		return err
	}
	if layer == "" {
		return nil
	}
	if fi, err := os.Stat(layer); err != nil || !fi.IsDir() {
		return nil
	}
	var noClone atomic.Bool
	type dirTime struct {
		p  string
		fi fs.FileInfo
	}
	var dirs []dirTime
	err := filepath.WalkDir(layer, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(layer, p)
		if rel == "." {
			return nil
		}
		to := filepath.Join(cache, rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			if err := os.Mkdir(to, 0o700); err != nil && !os.IsExist(err) {
				return err
			}
			dirs = append(dirs, dirTime{to, fi})
		case fi.Mode().IsRegular():
			if _, err := fsutil.CopyFile(p, to, fi, &noClone); err != nil {
				return err
			}
			_ = os.Chmod(to, fi.Mode().Perm())
			_ = os.Chtimes(to, fi.ModTime(), fi.ModTime())
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Chmod(dirs[i].p, dirs[i].fi.Mode().Perm()|0o700)
		_ = os.Chtimes(dirs[i].p, dirs[i].fi.ModTime(), dirs[i].fi.ModTime())
	}
	return err
}

// slotName: KEY-N as newDir names a slot (12 hex digits, '-', a number),
// not a random MkdirTemp name.
func slotName(rest string) bool {
	key, n, ok := strings.Cut(rest, "-")
	if !ok || len(key) != 12 || n == "" {
		return false
	}
	for _, r := range n {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// SealStatus says what seals this sandbox's commands ("landlock abi 7"),
// or "" and why not.
func (s *Sandbox) SealStatus() (string, string) {
	if s.opts.NoSeal {
		return "", "sealing turned off"
	}
	return landlock.Seal(s.abi), s.why
}

// sealLine is a result's seal: what sealed its command, or that nothing
// did and why (the mode then guards against accidents only).
func sealLine(seal, why string) string {
	if seal != "" {
		return seal
	}
	if why != "" {
		return "none: guards against accidents only (" + why + ")"
	}
	return ""
}
