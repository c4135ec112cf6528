//go:build linux || darwin

package copy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
)

// Options shape what a copy holds and how its command is ended.
type Options struct {
	// Skip are --copy-skip globs: directories (or files) left out of every
	// copy, workspace-relative; a glob without '/' matches a name at any
	// depth (node_modules, target).
	Skip []string
	// Exclude are absolute paths never copied: shadow's own state dir
	// when it lies inside the workspace.
	Exclude []string
	// Grace is how long the command's processes get between SIGTERM and
	// SIGKILL on timeout or cancel (default 2s).
	Grace time.Duration
	// RequireSeal (--require-seal): refuse to run a command Landlock
	// cannot seal. NoSeal turns the seal off (tests of the unsealed mode).
	RequireSeal, NoSeal bool
	// Writable (--writable) are directories the sealed command may also
	// write: in copy mode the real ones, there is no overlay to throw the
	// writes away. HostPorts (--host-port) are the TCP ports a sealed
	// command may still bind and connect to under --net isolated.
	Writable  []string
	HostPorts []int
	// CacheDir is where older shadows kept each copy slot's caches
	// across runs (caches.go): hidden from sealed commands, whose caches
	// are each job's own, inside its copy.
	CacheDir string
}

// Sandbox runs each job in its own copy of the workspace. Make one with New.
type Sandbox struct {
	base string
	opts Options

	// abi is the Landlock ABI the kernel offers (0: none, why says why).
	abi int
	why string

	mu     sync.Mutex
	copyNS int64
	bytes  int64
}

// New returns a copy-mode sandbox that makes its copies under base (see
// Base for where that should be).
func New(base string, opts Options) *Sandbox {
	if opts.Grace <= 0 {
		opts.Grace = 2 * time.Second
	}
	abi, why := landlock.Status()
	return &Sandbox{base: base, opts: opts, abi: abi, why: why}
}

func (s *Sandbox) Mode() engine.Mode { return engine.ModeCopy }
func (s *Sandbox) Parallel() bool    { return true }

// CopyCost is what making the copies has cost so far: the time spent
// copying, summed over hypotheses, and the bytes of file data copied
// (shared blocks included: a reflinked file counts its size).
func (s *Sandbox) CopyCost() (ms, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.copyNS / 1e6, s.bytes
}

// Run implements engine.Sandbox.
func (s *Sandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	out := engine.Outcome{ExitCode: -1}
	if job.Net == "private" {
		return out, errors.New("--net private needs overlay mode (a network namespace per hypothesis); copy mode gives --net host, or --net isolated with Landlock")
	}
	netIsolated := job.Net == "isolated"
	if netIsolated && (s.opts.NoSeal || s.abi < 4) {
		return out, errors.New("copy mode isolates the network only with Landlock ABI 4 or later (TCP bind and connect refused), and this kernel offers none: drop --net isolated, or run where `shadow probe` finds overlay mode")
	}
	if err := checkOutside(s.base, job.Workspace); err != nil {
		return out, err
	}
	dir, err := s.newDir(job.Workspace)
	if err != nil {
		return out, err
	}
	// Registered before anything can fail half-way; it runs after the
	// helper has ended every process that could still write there.
	defer s.removeDir(dir)
	own := owner{Boot: reaper.BootID(), Workspace: job.Workspace, Shadow: reaper.Self()}
	if err := own.write(dir); err != nil {
		return out, fmt.Errorf("write the owner file of %s: %w", dir, err)
	}

	name := filepath.Base(job.Workspace)
	if name == string(filepath.Separator) || name == "." {
		name = "root"
	}
	tree := filepath.Join(dir, name)
	dels := map[string]bool{}
	for _, d := range job.Hyp.Deletes {
		dels[d] = true
	}
	c, err := copyTree(job.Workspace, tree, copyOpts{skip: s.opts.Skip, exclude: s.opts.Exclude, deletes: dels, noOwners: s.abi > 0 && !s.opts.NoSeal})
	if err == nil {
		for i := len(job.Lowers) - 1; i >= 0 && err == nil; i-- {
			err = c.overlay(job.Lowers[i])
		}
	}
	if c != nil {
		s.mu.Lock()
		s.copyNS += c.st.Duration.Nanoseconds()
		s.bytes += c.st.Bytes
		s.mu.Unlock()
	}
	if err != nil {
		return out, fmt.Errorf("copy the workspace to %s: %w (see `shadow probe`; --copy-skip GLOB leaves a directory out)", tree, err)
	}
	if err := writeHyp(ctx, c, job.Hyp); err != nil {
		return out, err
	}
	out.Warnings = append(out.Warnings, c.notes(job)...)

	cwd := filepath.Join(tree, filepath.FromSlash(job.Subdir))
	env := rebaseEnv(job.Env, job.Workspace, tree)
	env = setEnv(env, "PWD", cwd)
	if job.Tmp == "private" {
		// No namespace for a tmpfs on /tmp: a TMPDIR of its own, beside
		// the copy and removed with it, is what tools honour.
		tmp := filepath.Join(dir, "tmp")
		if err := os.Mkdir(tmp, 0o700); err != nil {
			return out, err
		}
		env = setEnv(env, "TMPDIR", tmp)
	}
	var ports []uint16
	for _, p := range s.opts.HostPorts {
		ports = append(ports, uint16(p))
	}
	seal, env, release, err := s.sealed(dir, tree, env, netIsolated, ports, job.HomeLayer, job.KeepHome)
	if err != nil {
		return out, fmt.Errorf("prepare the seal of %s: %w", dir, err)
	}
	defer release()
	argv := make([]string, len(job.Command))
	for i, a := range job.Command {
		argv[i] = rebaseArg(a, job.Workspace, tree)
	}
	st, err := reaper.Run(ctx, reaper.Command{Argv: argv, Dir: cwd, Env: env, Output: job.Output, Grace: s.opts.Grace, Seal: seal}, func(h reaper.ProcID) {
		own.Helper = &h
		_ = own.write(dir)
	})
	if err != nil {
		return out, err
	}
	if st != nil {
		out.ExitCode, out.Signal = st.Exit, st.Signal
		out.Seal = sealLine(st.Seal, st.SealWhy)
		if st.Ended > 0 && st.Ending == "" {
			out.Warnings = append(out.Warnings, fmt.Sprintf("copy mode: the command left %d process(es) running (a daemon, setsid or double fork); they were ended", st.Ended))
		}
	}
	out.Changed = c.changed()
	out.Collected = collect(c, job.Collect, out.Changed)
	if job.KeepDir != "" {
		keep(c, job.KeepDir, out.Changed)
	}
	return out, nil
}

// newDir makes one copy's directory: the lowest free slot of this
// workspace's (copy-<key>-N), the same paths run after run. Go's build
// cache keys a package by its directory and cargo's fingerprints by the
// path, so a copy at a new random path each time rebuilt everything
// (bench/ecosystems.sh: go-cmp cost 4x the loop's CPU); at a reused path
// their entries from the last run hit. mkdir(2) is atomic, so two jobs
// (or two runs) never share a slot; a slot a crash left behind is skipped
// until gc removes it. A sibling copies directory is removed when its
// last copy is, so another job's removal may race the creation: that is
// retried.
func (s *Sandbox) newDir(ws string) (string, error) {
	key := slotKey(ws)
	var err error
	for i := 0; i < 3; i++ {
		if err = os.MkdirAll(s.base, 0o700); err != nil {
			return "", fmt.Errorf("create the copies directory %s: %w", s.base, err)
		}
		for n := 0; n < maxSlots; n++ {
			dir := filepath.Join(s.base, fmt.Sprintf("%s%s-%d", copyPrefix, key, n))
			if err = os.Mkdir(dir, 0o700); err == nil {
				return dir, nil
			}
			if !errors.Is(err, fs.ErrExist) {
				break
			}
		}
		var dir string
		if dir, err = os.MkdirTemp(s.base, copyPrefix); err == nil {
			return dir, nil
		}
	}
	return "", fmt.Errorf("create a copy directory in %s: %w", s.base, err)
}

// maxSlots bounds the search for a free slot; past it (leftovers of many
// crashes) a copy gets a random path, as before.
const maxSlots = 256

// slotKey names a workspace's slots: copies of different workspaces may
// share a base (the state dir).
func slotKey(ws string) string {
	h := sha256.Sum256([]byte(ws))
	return hex.EncodeToString(h[:6])
}

// removeDir removes a copy, and the copies directory beside the
// checkout once it is empty: nothing of shadow's stays next to it.
func (s *Sandbox) removeDir(dir string) {
	_ = fsutil.RemoveTree(dir)
	if filepath.Base(s.base) == SiblingDir {
		_ = os.Remove(s.base)
	}
}

// writeHyp writes the hypothesis's files into the copy and makes its
// deletions there; parent directories the copy lacks get the
// workspace's modes, as in overlay mode.
//
// It stops with ctx's error once ctx is done (a signal during a
// hypothesis of many files).
func writeHyp(ctx context.Context, c *copier, h engine.Hypothesis) error {
	// The copy left the deleted paths out; a --freeze layer may have
	// brought one back.
	for _, rel := range h.Deletes {
		if _, err := os.Lstat(c.dstPath(rel)); err != nil {
			continue
		}
		if err := fsutil.RemoveTree(c.dstPath(rel)); err != nil {
			return fmt.Errorf("delete %s in the copy: %w", rel, err)
		}
		c.restamp(rel)
	}
	for i, f := range h.Files {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		p := c.dstPath(f.Path)
		if err := mkParents(c, f.Path); err != nil {
			return err
		}
		// Never write through what the workspace holds at that path: a
		// symlink in the copy could lead back into the checkout.
		_ = os.Remove(p)
		if err := os.WriteFile(p, f.Content, 0o600); err != nil {
			return fmt.Errorf("write %s in the copy: %w", f.Path, err)
		}
		// Chmod after writing: WriteFile's mode is masked by the umask.
		if err := os.Chmod(p, f.Mode.Perm()); err != nil {
			return err
		}
		c.restamp(f.Path)
	}
	return nil
}

func mkParents(c *copier, rel string) error {
	parts := strings.Split(rel, "/")
	cur := ""
	for _, p := range parts[:len(parts)-1] {
		cur = join(cur, p)
		to := c.dstPath(cur)
		if fi, err := os.Lstat(to); err == nil {
			if fi.IsDir() {
				continue
			}
			_ = os.Remove(to)
		}
		mode := os.FileMode(0o755)
		if fi, err := os.Stat(c.srcPath(cur)); err == nil && fi.IsDir() {
			mode = fi.Mode().Perm()
		}
		if err := os.Mkdir(to, mode|0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("prepare %s in the copy: %w", cur, err)
		}
	}
	return nil
}

// collect reads the named files from the copy: only what the command
// wrote counts, never a stale copy of the checkout's.
func collect(c *copier, paths, changed []string) map[string][]byte {
	if len(paths) == 0 {
		return nil
	}
	wrote := map[string]bool{}
	for _, p := range changed {
		wrote[p] = true
	}
	got := map[string][]byte{}
	for _, p := range paths {
		if !wrote[p] {
			continue
		}
		if b, err := os.ReadFile(c.dstPath(p)); err == nil {
			got[p] = b
		}
	}
	return got
}

// keep moves what the command wrote into keepDir (--keep), which then
// holds the same as an overlay upper dir would, deletions aside.
func keep(c *copier, keepDir string, changed []string) {
	for _, rel := range changed {
		from := c.dstPath(rel)
		if _, err := os.Lstat(from); err != nil {
			continue
		}
		to := filepath.Join(keepDir, filepath.FromSlash(rel))
		if os.MkdirAll(filepath.Dir(to), 0o700) != nil {
			continue
		}
		if os.Rename(from, to) != nil {
			if fi, err := os.Lstat(from); err == nil && fi.Mode().IsRegular() {
				_, _ = copyFile(from, to, fi, &c.noClone)
			}
		}
	}
}

// checkOutside refuses a copies directory inside the workspace: every copy
// would copy the ones before it, and the command would see them.
func checkOutside(base, workspace string) error {
	if inside(base, workspace) {
		return fmt.Errorf("the copies directory %s is inside the workspace %s: set XDG_STATE_HOME to a directory outside it", base, workspace)
	}
	return nil
}

func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
