package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"

	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

// sandboxMinAge: a sandbox dir younger than this may belong to a run that
// is still preparing it (before its overlay is mounted, nothing else marks
// it as live), so gc leaves it for next time.
var sandboxMinAge = 30 * time.Second

// cmdGC removes what crashed runs left behind: it replays every
// workspace's leftover in-place journal (restoring the checkout), and
// removes overlay upper/work dirs no live run uses.
func cmdGC(args []string) int {
	fs := flag.NewFlagSet("gc", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return usageErr("usage: shadow gc")
	}
	root, err := snap.DefaultRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow:", err)
		return exitEnv
	}
	store := snap.Store{Root: root}
	failed := false

	// 1. In-place journals: a run killed with a hypothesis in the checkout.
	wsDirs, _ := filepath.Glob(filepath.Join(root, "workspaces", "*"))
	for _, d := range wsDirs {
		if !inplace.HasJournal(d) {
			continue
		}
		if !gcJournal(d) {
			failed = true
		}
	}

	// 2. Overlay upper/work dirs of crashed runs (and probes).
	bases := []string{store.SandboxDir(), overlay.TmpSandboxes()}
	var live liveSet
	for i, base := range bases {
		if i > 0 && base == bases[0] {
			continue
		}
		ents, err := os.ReadDir(base)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() || !(strings.HasPrefix(e.Name(), "hyp-") || strings.HasPrefix(e.Name(), "probe-")) {
				continue
			}
			dir := filepath.Join(base, e.Name())
			if why := sandboxInUse(dir, &live); why != "" {
				fmt.Printf("kept %s: %s\n", dir, why)
				continue
			}
			if err := removeNoCross(dir); err != nil {
				fmt.Fprintf(os.Stderr, "shadow gc: remove %s: %v\n", dir, err)
				failed = true
				continue
			}
			fmt.Printf("removed %s\n", dir)
		}
	}

	// 2b. Copy-mode copies of crashed runs.
	if !gcCopies(store, wsDirs) {
		failed = true
	}

	// 3. The log dirs of --no-record runs whose process is gone.
	swept, errs := snap.SweepScratch([]string{overlay.TmpRoot(), os.TempDir()}, fsutil.RemoveTree)
	for _, d := range swept {
		fmt.Printf("removed %s (a --no-record run's logs; its process is gone)\n", d)
	}
	for _, err := range errs {
		fmt.Fprintln(os.Stderr, "shadow gc:", err)
		failed = true
	}

	// 3. Old run records (snap.DefaultPolicy), unused recorded files, and
	// --freeze copies of ended runs.
	if !gcRuns(store) {
		failed = true
	}

	// Always one closing line, so a gc with nothing to do still says so.
	fmt.Printf("shadow gc: %d workspace(s) in %s checked\n", len(wsDirs), root)
	if failed {
		return exitEnv
	}
	return 0
}

// gcJournal replays one workspace's journal unless a live run holds the
// workspace (then the journal is that run's, not a leftover).
func gcJournal(stateDir string) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // one try: never wait for a live run
	release, err := inplace.Lock(ctx, filepath.Join(stateDir, inplace.LockName), true, nil)
	if err != nil {
		fmt.Printf("kept the journal in %s: a shadow run is using that workspace\n", stateDir)
		return true
	}
	defer release()
	r, err := inplace.Recover(stateDir, "")
	if r.Journal != nil {
		fmt.Printf("%s: %s\n", r.Journal.Workspace, r.Describe())
	} else if r.Discarded {
		fmt.Printf("removed an unfinished journal in %s (the checkout had not been touched)\n", stateDir)
	}
	for _, w := range r.Warnings {
		fmt.Println("  " + w)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow gc:", err)
		return false
	}
	return true
}

// liveSet is what running processes use: mount points and overlay
// layer dirs in every mount namespace, and open files and directories.
type liveSet struct {
	loaded bool
	paths  []string
}

func (l *liveSet) load() {
	if l.loaded {
		return
	}
	l.loaded = true
	seenNS := map[string]bool{}
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			l.paths = append(l.paths, filepath.Clean(p))
		}
	}
	// Our own namespace first: a mount point inside a dir must never be
	// deleted through.
	l.mountinfo("/proc/self/mountinfo", add)
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		pd := filepath.Join("/proc", p.Name())
		if ns, err := os.Readlink(filepath.Join(pd, "ns", "mnt")); err == nil && !seenNS[ns] {
			seenNS[ns] = true
			l.mountinfo(filepath.Join(pd, "mountinfo"), add)
		}
		for _, link := range []string{"cwd", "root"} {
			if t, err := os.Readlink(filepath.Join(pd, link)); err == nil && t != "/" {
				add(t)
			}
		}
		fds, _ := os.ReadDir(filepath.Join(pd, "fd"))
		for _, fd := range fds {
			if t, err := os.Readlink(filepath.Join(pd, "fd", fd.Name())); err == nil {
				add(strings.TrimSuffix(t, " (deleted)"))
			}
		}
	}
}

// mountinfo adds each mount point and each overlay layer directory
// (lowerdir, upperdir, workdir) of one mount table.
func (l *liveSet) mountinfo(file string, add func(string)) {
	b, err := os.ReadFile(file)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		add(unescapeMount(f[4]))
		for i, x := range f {
			if x == "-" && i+3 < len(f) {
				for _, opt := range strings.Split(f[i+3], ",") {
					k, v, ok := strings.Cut(opt, "=")
					if !ok || (k != "lowerdir" && k != "upperdir" && k != "workdir") {
						continue
					}
					for _, d := range strings.Split(v, ":") {
						add(unescapeMount(d))
					}
				}
				break
			}
		}
	}
}

// unescapeMount decodes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sandboxInUse says why dir must stay, or "".
func sandboxInUse(dir string, live *liveSet) string {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err.Error()
	}
	if time.Since(fi.ModTime()) < sandboxMinAge {
		return "too recent (a run may be preparing it)"
	}
	live.load()
	for _, p := range live.paths {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			return "in use (" + p + " is mounted or open)"
		}
	}
	return ""
}

// removeNoCross removes dir, refusing to descend into anything on another
// device (a mount point that appeared after the check).
func removeNoCross(dir string) error {
	root, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	dev := devOf(root)
	var crossed error
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		fi, err := os.Lstat(p)
		if err == nil && devOf(fi) != dev {
			crossed = fmt.Errorf("%s is on another filesystem (a mount point): not removing through it", p)
			return filepath.SkipAll
		}
		return nil
	})
	if crossed != nil {
		return crossed
	}
	return fsutil.RemoveTree(dir)
}
