//go:build unix

package inplace

import (
	"os"
	"path/filepath"

	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

// The seal of in-place mode (docs/modes.md, "inplace"): where the kernel
// offers Landlock, the command may write the checkout (that is the mode), a
// private TMPDIR and the workspace's private caches, and nothing else: not the
// state dir (the journal it is restored from, the integrity key the journal's
// MAC is made with, the records), not $HOME, not other workspaces; and neither
// it nor a daemon it leaves can signal or ptrace shadow or its helper (package
// landlock). What the command writes in the checkout's .git stays, as any
// build output does in this mode.

// SealOptions are the seal's settings (see copy.Options for each).
type SealOptions struct {
	Require, Off bool
	Writable     []string
	// Hidden are paths the sealed command may not read: shadow's own
	// dirs (sandbox.ShadowDirs), besides the state dir.
	Hidden []string
}

// Seal sets how commands are sealed and returns s.
func (s *Sandbox) Seal(o SealOptions) *Sandbox {
	s.seal = o
	return s
}

// SealStatus says what seals this sandbox's commands ("landlock abi 7"),
// or "" and why not.
func (s *Sandbox) SealStatus() (string, string) {
	if s.seal.Off {
		return "", "sealing turned off"
	}
	abi, why := landlock.Status()
	return landlock.Seal(abi), why
}

// sealed returns the policy and environment of one job's command and a
// cleanup for its private TMPDIR, or a nil policy where it runs unsealed
// (no Landlock here and none required: guarded against accidents only).
func (s *Sandbox) sealed(ws string, env []string) (*landlock.Policy, []string, func(), error) {
	none := func() {}
	if s.seal.Off {
		return nil, env, none, nil
	}
	if abi, _ := landlock.Status(); abi == 0 {
		if s.seal.Require {
			return &landlock.Policy{Required: true}, env, none, nil
		}
		return nil, env, none, nil
	}
	// The private TMPDIR: /tmp is read-only to the command.
	tmp, err := os.MkdirTemp("", "shadow-inplace-tmp-")
	if err != nil {
		return nil, nil, none, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	// The caches: one set per workspace, kept across runs (one run holds
	// the workspace at a time), in the state dir but the only part of it
	// the command may write.
	cache := filepath.Join(s.stateDir, "inplace-cache")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		cleanup()
		return nil, nil, none, err
	}
	env, err = landlock.ScratchEnv(env, tmp, cache)
	if err != nil {
		cleanup()
		return nil, nil, none, err
	}
	write := append([]string{ws, tmp, cache}, s.seal.Writable...)
	// Not even readable: shadow's state (its integrity key, records,
	// this run's journal) but the caches above.
	hidden := append([]string{s.stateDir}, s.seal.Hidden...)
	return &landlock.Policy{Write: write, Hidden: hidden, Devices: landlock.DefaultDevices, Required: s.seal.Require}, env, cleanup, nil
}
