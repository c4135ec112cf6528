package nsinit

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// setupMounts builds the hypothesis's view: a private mount tree, /tmp,
// /var/tmp and /dev/shm, the overlays on the workspace's own path (and
// any extra shadowed dirs: a worktree's git dir, $HOME, --writable
// paths), deletions, /proc, lo, the seal (everything else read-only,
// seal_linux.go), uid 0's reduced /dev, /sys and /proc, and the masks
// over shadow's own directories.
func setupMounts(cfg *Config) (Status, error) {
	var st Status
	fail := func(stage string, err error) (Status, error) {
		st.Stage, st.Error, st.Errno = stage, err.Error(), ErrnoName(err)
		return st, err
	}
	// Without MS_PRIVATE a mount could propagate back to the parent
	// namespace through a shared peer group (mount_namespaces(7)).
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fail("make / private", err)
	}
	if cfg.TmpBytes > 0 {
		tmpSize = "size=" + strconv.FormatInt(cfg.TmpBytes, 10)
	}
	if cfg.RAM > 0 {
		fd, err := mountRAM(cfg.Root, cfg.RAM)
		if err != nil {
			return fail("mount the RAM upper (--upper ram) on "+cfg.Root, err)
		}
		err = sendFD(RAMFD, fd)
		unix.Close(fd)
		unix.Close(RAMFD)
		if err != nil {
			return fail("send the RAM upper to shadow", err)
		}
	}
	type layer struct {
		target string
		lowers []string // topmost first
		upper  string
		work   string
		subs   bool // bind the mounts below target again (Dir.Submounts)
		ws     bool // the workspace
		made   bool // target made inside its parent's overlay (Dir.Made)
		opt    bool // Dir.Optional
	}
	layers := []layer{{target: cfg.Lower, lowers: append(append([]string{}, cfg.Lowers...), cfg.Lower), upper: cfg.Upper, work: cfg.Work, ws: true}}
	for _, x := range cfg.Extra {
		l := layer{target: x.Target, lowers: append(append([]string{}, x.Lowers...), x.Target), upper: x.Upper, work: x.Work, subs: x.Submounts}
		if x.Made {
			l.lowers, l.made = append([]string{}, x.Lowers...), true
		}
		l.opt = x.Optional
		layers = append(layers, l)
	}
	// Shallowest first: $HOME's overlay goes below a workspace in $HOME.
	sort.SliceStable(layers, func(i, j int) bool { return depth(layers[i].target) < depth(layers[j].target) })
	targets := make([]string, len(layers))
	for i, l := range layers {
		targets[i] = l.target
	}
	// Later mounts hide the layers' paths (a private /tmp over a workspace
	// in /tmp, $HOME's overlay over a workspace in $HOME, whose lower must
	// be the real directory): every layer is reached through a descriptor
	// opened now (overlayfs resolves /proc/self/fd/N like any path at
	// mount time), and the mount points under a fresh tmpfs are made again.
	var opened []int // O_PATH descriptors of the layers, until the overlays hold them
	closeOpened := func() {
		for _, fd := range opened {
			unix.Close(fd)
		}
		opened = nil
	}
	defer closeOpened()
	viaFD := func(dir string) (string, error) {
		fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", err
		}
		// Closed once the overlays hold the layers (closeOpened).
		opened = append(opened, fd)
		return fmt.Sprintf("/proc/self/fd/%d", fd), nil
	}
	subs := make([][]submount, len(layers))
	for i := range layers {
		l := &layers[i]
		if l.subs {
			s, err := openSubmounts(l.target, targets)
			if err != nil {
				return fail("list the mounts below "+l.target, err)
			}
			subs[i] = s
			for _, m := range s {
				opened = append(opened, m.fd)
			}
		}
		for j, d := range l.lowers {
			p, err := viaFD(d)
			if err != nil {
				return fail("open "+d, err)
			}
			l.lowers[j] = p
		}
		var err error
		if l.upper, err = viaFD(l.upper); err != nil {
			return fail("open "+l.upper, err)
		}
		if l.work, err = viaFD(l.work); err != nil {
			return fail("open "+l.work, err)
		}
	}
	writable, fresh, stage, err := mountTmp(cfg.Tmp == "shared", os.Getuid() == 0)
	if err != nil {
		return fail(stage, err)
	}
	for _, d := range fresh {
		noteOwnMount(d)
	}
	for _, l := range layers {
		for _, d := range fresh {
			if within(l.target, d) {
				if err := os.MkdirAll(l.target, 0o755); err != nil {
					return fail("recreate "+l.target+" in the private "+d, err)
				}
			}
		}
	}
	for i, l := range layers {
		if l.made {
			// Inside an overlay mounted above (sorted shallowest first):
			// the directory lands in that overlay's upper.
			if err := os.MkdirAll(l.target, 0o755); err != nil {
				return fail("make "+l.target+" for its cache overlay", err)
			}
		}
		lower := make([]string, len(l.lowers))
		for j, d := range l.lowers {
			lower[j] = escapeOpt(d)
		}
		var flags uintptr
		if !l.ws {
			// Not the workspace: nothing there needs a setuid bit or a
			// device node.
			flags = unix.MS_NOSUID | unix.MS_NODEV
		}
		var lastErr error
		for _, opts := range cfg.Options {
			data := "lowerdir=" + strings.Join(lower, ":") + ",upperdir=" + escapeOpt(l.upper) + ",workdir=" + escapeOpt(l.work)
			if opts != "" {
				data += "," + opts
			}
			if err := unix.Mount("overlay", l.target, "overlay", flags, data); err != nil {
				lastErr = err
				continue
			}
			if l.ws {
				st.Options = opts
			}
			lastErr = nil
			break
		}
		if lastErr != nil && l.opt {
			st.Warnings = append(st.Warnings, fmt.Sprintf("the home layer's cache %s could not be overlaid (%v): not used for this hypothesis", l.target, lastErr))
			continue
		}
		if lastErr != nil && l.subs {
			// $HOME, a --writable path or a cache whose filesystem
			// overlayfs refuses as a lower layer: it stays read-only and
			// the result says so, rather than no hypothesis running.
			// Bound from the descriptor at its own path: under a fresh
			// /tmp it would be an empty directory; elsewhere this brings
			// its submounts along. The seal makes it read-only.
			_ = unix.Mount(l.lowers[len(l.lowers)-1], l.target, "", unix.MS_BIND|unix.MS_REC, "")
			st.Warnings = append(st.Warnings, fmt.Sprintf("%s could not be overlaid (%v), so it was read-only for this hypothesis", l.target, lastErr))
			continue
		}
		if lastErr != nil {
			stage := "mount overlay on " + l.target
			if cfg.RAM > 0 {
				// In a user namespace overlayfs keeps its xattrs in user.*,
				// which tmpfs stores only since Linux 6.6.
				stage += " over a RAM upper (--upper ram needs Linux 6.6 for user xattrs on tmpfs; use --upper disk)"
			}
			return fail(stage, lastErr)
		}
		noteOwnMount(l.target)
		if stage, err := bindSubmounts(subs[i]); err != nil {
			return fail(stage, err)
		}
		writable = append(writable, l.target)
	}
	closeOpened()
	// Deletions go through the mount so overlayfs records whiteouts in the
	// upper dir; the workspace itself is never written.
	for _, p := range cfg.Deletes {
		if err := os.RemoveAll(filepath.Join(cfg.Lower, filepath.FromSlash(p))); err != nil {
			return fail("delete "+p, err)
		}
	}
	// A fresh /proc shows only this PID namespace. Mounting it can be
	// refused where the outer /proc has masked paths (a container); the run
	// still works, it just sees the outer PIDs.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err == nil {
		st.Proc = true
		procFresh = true
	}
	if env, stage, err := setupNet(cfg); err != nil {
		return fail(stage, err)
	} else {
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			_ = os.Setenv(k, v) // the command inherits the init's environment
		}
	}
	if st.Proc {
		writable = append(writable, "/proc")
	}
	if stage, err := seal(writable); err != nil {
		return fail(stage, err)
	}
	if cfg.Probe {
		// Prove the mount works both ways, sealed: a write lands in upper,
		// a deletion leaves a whiteout.
		if err := os.WriteFile(filepath.Join(cfg.Lower, "probe-write"), []byte("ok"), 0o644); err != nil {
			return fail("write through overlay", err)
		}
		if err := os.Remove(filepath.Join(cfg.Lower, "probe-delete")); err != nil {
			return fail("delete through overlay", err)
		}
	}
	for _, l := range layers {
		if within(l.target, "/dev") {
			return fail("make a minimal /dev", fmt.Errorf("%s is under /dev, which a hypothesis gets a fresh minimal copy of: move the workspace elsewhere", l.target))
		}
	}
	if os.Getuid() == 0 {
		// No user namespace: the command will be uid 0 of the host, and
		// uid 0 without capabilities still opens root-owned files by their
		// owner bits (block devices, /proc/sys, sysfs).
		if stage, err := restrictRoot(st.Proc); err != nil {
			return fail(stage, err)
		}
	}
	// Every hypothesis, root or not, gets the same minimal /dev: the
	// host's holds the user's terminals (/dev/pts/N, /dev/tty*), which
	// the user may open, and whoever reads one takes what is typed there
	// (root_linux.go).
	if err := minimalDev(); err != nil {
		return fail("make a minimal /dev", err)
	}
	if stage, err := mask(cfg.Masks); err != nil {
		return fail(stage, err)
	}
	return st, nil
}

// mask covers each path that exists in the view: a directory with an empty
// tmpfs, anything else (a socket, a file) with /dev/null. A mount, not a
// permission: read-only would still let a candidate read and copy a
// sibling's fix, and the command has no capability left to unmount it; in
// a user namespace the masks are also locked to the mounts below
// (mount_namespaces(7)), so a nested namespace cannot peel them off.
func mask(paths []string) (string, error) {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue // not in this view: nothing to reach
		}
		if fi.IsDir() {
			if err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0700,size=64m"); err != nil {
				return "mask " + p, err
			}
			continue
		}
		if err := unix.Mount("/dev/null", p, "", unix.MS_BIND, ""); err != nil {
			return "mask " + p, err
		}
	}
	return "", nil
}

// escapeOpt escapes the characters overlayfs's option parser treats as
// separators (',' between options, ':' between lower layers).
func escapeOpt(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `,`, `\,`, `:`, `\:`)
	return r.Replace(s)
}

// loopbackUp sets IFF_UP on lo in the new network namespace, which starts
// with only a down loopback (network_namespaces(7)).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// within reports whether p is dir or lies below it (lexically).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
