//go:build linux || darwin

package copy

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

// The seal of copy mode (issue 26): where the kernel offers Landlock, the
// command may write only its own copy, a private TMPDIR and private
// caches (landlock.ScratchEnv); everything else (the checkout, the state
// dir, the sibling copies, $HOME, /tmp, /dev/shm, the whole system as
// root) is read-only to it, and it cannot signal, ptrace or reach the
// abstract sockets of anything outside its own domain (package
// landlock). The caches are one set per copy slot (CacheDir/KEY-N for
// copy-KEY-N), kept from run to run like the slot's path, so Go's build
// cache is cold only the first time a slot is used (bench/landlock.sh:
// go-cmp cold costs about 58 s of CPU against 0.3-11 s warm). The user's
// own caches are never written, so a candidate cannot poison what the
// user's `go test` later reads.

// sealed returns the Landlock policy and environment of one sealed job,
// or nil where the run is not sealed (no Landlock here and none
// required: the command runs as today, guarded against accidents only).
// release lets go of the slot's caches once the job is done (gc may
// then remove them: caches.go).
func (s *Sandbox) sealed(dir, tree string, env []string, net bool, ports []uint16) (_ *landlock.Policy, _ []string, release func(), _ error) {
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
	cache := s.slotCache(dir)
	release, err := useCache(cache)
	if err != nil {
		return nil, nil, none, err
	}
	env, err = landlock.ScratchEnv(env, tmp, cache)
	if err != nil {
		release()
		return nil, nil, none, err
	}
	write := append([]string{tree, tmp, cache}, s.opts.Writable...)
	return &landlock.Policy{Write: write, Devices: landlock.DefaultDevices, Net: net, Ports: ports, Required: s.opts.RequireSeal}, env, release, nil
}

// slotCache is the private cache directory of the copy slot dir:
// CacheDir/KEY-N, kept across runs (one job holds a slot at a time), or,
// without a CacheDir or for a randomly named copy, one inside the copy,
// removed with it (cold every time).
func (s *Sandbox) slotCache(dir string) string {
	name := filepath.Base(dir)
	if rest, ok := strings.CutPrefix(name, copyPrefix); ok && s.opts.CacheDir != "" && slotName(rest) {
		return filepath.Join(s.opts.CacheDir, rest)
	}
	return filepath.Join(dir, "cache")
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
