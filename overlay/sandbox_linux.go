package overlay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/sandbox/reexec"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
)

// Sandbox runs jobs in overlay shadows. Its zero value is not usable: make
// one with New.
type Sandbox struct {
	base    string   // where per-job upper/work dirs are made
	options []string // overlay option sets to try, best first
	masks   []string // shadow's directories, hidden from every command
	ram     int64    // --upper ram: each job's tmpfs cap in bytes; 0 = disk
	// Network and resources (guard_linux.go, net_linux.go, limits_linux.go).
	hostPorts []int
	limits    Limits
	proxyOnce sync.Once
	outbound  *outboundProxy
	noProxy   bool
	fdOnce    sync.Once
	fds       *fdBudget
	// writable are --writable paths, overlaid per job (seal_linux.go).
	writable []string
}

// New returns a sandbox that keeps per-job directories under base (which
// must be on a filesystem overlayfs accepts as upper, outside any workspace
// it will shadow). options, when non-empty, is the probe's verdict of which
// mount options work here. base itself is always masked inside the
// namespace (siblings' upper dirs live there); Mask adds the others.
func New(base string, options []string) *Sandbox {
	if len(options) == 0 {
		options = defaultOptions()
	}
	return &Sandbox{base: base, options: options}
}

// Mask adds directories shadow writes (the resolved state dir, $TMPDIR
// fallbacks, --no-record temp dirs, copies, ssh control sockets) that
// every command must not see: inside the namespace each is covered by an
// empty tmpfs mounted after the overlay. It returns s for chaining.
func (s *Sandbox) Mask(dirs ...string) *Sandbox {
	for _, d := range dirs {
		if d != "" {
			s.masks = append(s.masks, d)
		}
	}
	return s
}

// defaultOptions lists overlay option sets from best to most compatible.
// volatile (Linux 5.10) skips the sync of the upper fs on every mount and
// unmount, which is pure cost for a throw-away upper dir; userxattr (5.11)
// lets overlayfs keep its xattrs in user.* inside a user namespace, where
// trusted.* is not writable.
func defaultOptions() []string {
	if os.Geteuid() == 0 {
		return []string{"volatile", ""}
	}
	return []string{"userxattr,volatile", "userxattr", "volatile", ""}
}

func (s *Sandbox) Mode() engine.Mode { return engine.ModeOverlay }
func (s *Sandbox) Parallel() bool    { return true }

// Run implements engine.Sandbox.
func (s *Sandbox) Run(ctx context.Context, job engine.Job) (engine.Outcome, error) {
	out := engine.Outcome{ExitCode: -1}
	if err := checkOutside(s.base, job.Workspace); err != nil {
		return out, err
	}
	// git dirs outside the workspace (a worktree's main .git) are shadowed
	// too; shadow's own dirs and servers' sockets are masked.
	gitDirs := outsideGitDirs(job.Workspace, job.Env)
	masks, err := s.maskList(job, gitDirs)
	if err != nil {
		return out, err
	}
	// No variable may point the command at a server outside the sandbox.
	env := commandEnv(job.Env)
	// Every job gets a private sccache port, whether or not sccache can be
	// seen from here: a launcher named by absolute path in a build file
	// would otherwise reach a sibling's server (sccacheEnv).
	if env, err = sccacheEnv(env); err != nil {
		return out, err
	}
	if err := os.MkdirAll(s.base, 0o700); err != nil {
		return out, fmt.Errorf("create sandbox directory %s: %w", s.base, err)
	}
	dir, err := os.MkdirTemp(s.base, hypPrefix)
	if err != nil {
		return out, fmt.Errorf("create sandbox directory in %s: %w", s.base, err)
	}
	// Registered before anything can fail half-way: the upper dir may hold
	// whiteouts and directories the command made unwritable.
	defer fsutil.RemoveTree(dir)
	upper, work := filepath.Join(dir, "upper"), filepath.Join(dir, "work")
	for _, d := range []string{upper, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return out, err
		}
	}
	// The upper root's attributes become the merged root's: match the
	// workspace's mode so the command sees the directory it expects.
	if fi, err := os.Stat(job.Workspace); err == nil {
		_ = os.Chmod(upper, fi.Mode().Perm())
	}
	var extra []shadowDir
	for i, g := range gitDirs {
		x := shadowDir{Target: g, Upper: filepath.Join(dir, fmt.Sprintf("git%d-upper", i)), Work: filepath.Join(dir, fmt.Sprintf("git%d-work", i))}
		for _, d := range []string{x.Upper, x.Work} {
			if err := os.Mkdir(d, 0o700); err != nil {
				return out, err
			}
		}
		if fi, err := os.Stat(g); err == nil {
			_ = os.Chmod(x.Upper, fi.Mode().Perm())
		}
		extra = append(extra, x)
	}
	// The seal: $HOME, --writable paths and caches outside $HOME are
	// overlaid, each with an upper dir of its own beside the workspace's;
	// everything else outside the workspace is read-only.
	sealed := s.sealDirs(job, gitDirs, masks)
	for i, sd := range sealed {
		x := shadowDir{Target: sd.path, Upper: filepath.Join(dir, fmt.Sprintf("seal%d-upper", i)), Work: filepath.Join(dir, fmt.Sprintf("seal%d-work", i)), Submounts: true}
		for _, d := range []string{x.Upper, x.Work} {
			if err := os.Mkdir(d, 0o700); err != nil {
				return out, err
			}
		}
		if fi, err := os.Stat(sd.path); err == nil {
			_ = os.Chmod(x.Upper, fi.Mode().Perm())
		}
		extra = append(extra, x)
	}
	// The home layer's caches: an overlay each, inside $HOME's (or equal
	// to a cache overlaid outside it), with the layer's part stacked
	// between the real directory and the job's upper (home_linux.go).
	caches := homeCaches(job, sealed, masks)
	for _, hc := range caches {
		if hc.layer == "" && sealed[hc.parent].path != hc.path {
			// No overlay of its own: its writes land in the sealed dir's
			// upper, summed per cache in the report all the same.
			sealed[hc.parent].caches = append(sealed[hc.parent].caches, hc.path)
		}
	}
	homes, err := homeDirs(caches, dir, len(extra))
	if err != nil {
		return out, err
	}
	for _, h := range homes {
		extra = append(extra, h.x)
	}
	if err := writeUpper(ctx, job.Workspace, upper, job.Hyp.Files); err != nil {
		return out, err
	}
	cfg := initConfig{
		Lower: job.Workspace, Lowers: job.Lowers, Upper: upper, Work: work, Options: s.options,
		Deletes: job.Hyp.Deletes, Extra: extra, Masks: masks,
		Dir:  filepath.Join(job.Workspace, filepath.FromSlash(job.Subdir)),
		Argv: job.Command, Net: job.Net, Tmp: job.Tmp,
	}
	sealUppers := func(root string) []string {
		u := make([]string, len(sealed))
		for i := range sealed {
			u[i] = filepath.Join(root, fmt.Sprintf("seal%d-upper", i))
		}
		return u
	}(dir)
	var ram *ramLink
	if s.ram > 0 {
		if ram, err = newRAMLink(s.ram); err != nil {
			return out, err
		}
		defer ram.Close()
		cfg.RAM, cfg.Root = s.ram, dir
	}
	// The network namespace's listeners and the resource limits
	// (guard_linux.go).
	g, err := s.guard(job, &cfg, configFD+2+len(ram.childEnd()))
	if err != nil {
		return out, err
	}
	defer g.release()
	st, err := startInitHook(ctx, cfg, env, job.Output, g.attach, append(ram.childEnd(), g.files()...)...)
	if st != nil {
		out.PeakMemoryBytes, out.Limits = g.result(st)
	}
	if err != nil {
		return out, err
	}
	if st != nil {
		out.ExitCode, out.Signal = st.Exit, st.Signal
		out.Warnings = append(out.Warnings, st.Warnings...)
	}
	if ram != nil {
		// The upper is on the tmpfs now, reached through its descriptor.
		root := ram.receive()
		if root == "" {
			return out, nil // killed before the mount: nothing was written
		}
		upper = filepath.Join(root, "upper")
		for i := range sealUppers {
			sealUppers[i] = filepath.Join(root, filepath.Base(sealUppers[i]))
		}
		if w := ram.warning(); w != "" {
			out.Warnings = append(out.Warnings, w)
		}
	}
	out.Collected = collect(upper, job.Collect)
	out.Changed = changedPaths(upper, job.Workspace, job.Hyp)
	outDirs, outUppers := sealed, sealUppers
	for _, h := range homes {
		outDirs = append(outDirs, h.sd)
		up := h.x.Upper
		if ram != nil {
			up = filepath.Join(filepath.Dir(upper), filepath.Base(up))
		}
		outUppers = append(outUppers, up)
	}
	out.Outside = outsideWrites(outDirs, outUppers)
	if job.KeepHome != "" && ram == nil {
		keepHome(job.KeepHome, caches, homes, sealed, sealUppers)
	}
	if job.KeepDir != "" {
		if err := os.MkdirAll(filepath.Dir(job.KeepDir), 0o700); err == nil {
			if ram != nil {
				keepRAM(upper, job.KeepDir)
			} else {
				_ = os.Rename(upper, job.KeepDir)
			}
		}
	}
	return out, nil
}

// maskList is what the init covers: the sandbox base and the caller's
// directories, which must not hold anything the command needs (refused
// otherwise: masking would hide it), then servers' sockets, skipped where
// they would hide the workspace.
func (s *Sandbox) maskList(job engine.Job, gitDirs []string) ([]string, error) {
	targets := append([]string{job.Workspace}, gitDirs...)
	covers := func(m string) string {
		for _, t := range targets {
			if within(t, m) {
				return t
			}
		}
		return ""
	}
	var out []string
	for _, m := range append([]string{s.base}, s.masks...) {
		m = resolve(m)
		if t := covers(m); t != "" {
			return nil, fmt.Errorf("shadow's directory %s contains %s, which the command must see: set XDG_STATE_HOME (or TMPDIR) to a directory outside it", m, t)
		}
		out = append(out, m)
	}
	for _, m := range append(serverSockets(job.Env, os.Getuid()), listeningSockets(os.Geteuid())...) {
		if m = resolve(m); covers(m) == "" {
			out = append(out, m)
		}
	}
	return outermost(out), nil
}

// outermost drops the paths that lie in another of ps: once that one is
// covered, they are not in the view at all (the sandbox base lies in the
// state dir by default, a socket in a masked dir), and each mask left is
// a mount the init makes and the namespace tears down in every
// hypothesis. The order of the rest is kept.
func outermost(ps []string) []string {
	var out []string
next:
	for i, p := range ps {
		for j, q := range ps {
			if i != j && within(p, q) && (p != q || j < i) {
				continue next
			}
		}
		out = append(out, p)
	}
	return out
}

// writeUpper places the hypothesis's files in the upper dir before the
// mount, so the merged view holds them from the first instant. Parent
// directories copy the workspace's modes: overlayfs shows the upper
// directory's attributes for a merged directory.
//
// It stops with ctx's error once ctx is done: 50,000 files take minutes
// on a slow disk, and a signal must end the run then too.
func writeUpper(ctx context.Context, workspace, upper string, files []engine.File) error {
	for i, f := range files {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rel := filepath.FromSlash(f.Path)
		parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
		cur := ""
		for _, p := range parts {
			if p == "." {
				break
			}
			cur = filepath.Join(cur, p)
			mode := os.FileMode(0o755)
			if fi, err := os.Stat(filepath.Join(workspace, cur)); err == nil && fi.IsDir() {
				mode = fi.Mode().Perm()
			}
			if err := os.Mkdir(filepath.Join(upper, cur), mode|0o700); err != nil && !errors.Is(err, os.ErrExist) {
				return fmt.Errorf("prepare %s in upper dir: %w", cur, err)
			}
			if mode&0o700 != 0o700 {
				defer os.Chmod(filepath.Join(upper, cur), mode)
			}
		}
		p := filepath.Join(upper, rel)
		if err := os.WriteFile(p, f.Content, 0o600); err != nil {
			return fmt.Errorf("write %s to upper dir: %w", f.Path, err)
		}
		// Chmod after writing: WriteFile's mode is masked by the umask.
		if err := os.Chmod(p, f.Mode.Perm()); err != nil {
			return err
		}
	}
	return nil
}

// startInit re-executes this binary as the sandbox init and waits for it.
// extra are handed to the init after the configuration pipe and the status
// socket (ramFD). It returns the init's status, or nil when the init was
// killed (timeout, cancel) before it could report.
func startInit(ctx context.Context, cfg initConfig, env []string, output io.Writer, extra ...*os.File) (*initStatus, error) {
	return startInitHook(ctx, cfg, env, output, nil, extra...)
}

// startInitHook is startInit with started, when not nil, run with the
// init's pid before the init gets its configuration (so before it starts
// anything): it moves the init into the job's cgroups. An error from it
// ends the init unconfigured and is returned.
func startInitHook(ctx context.Context, cfg initConfig, env []string, output io.Writer, started func(pid int) error, extra ...*os.File) (*initStatus, error) {
	var startedErr error
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	// The configuration pipe is the init's configFD, the status socket
	// (the write end of the pair reexec makes) its statusFD; both are
	// close-on-exec here (os.Pipe, reexec's statusChannel), and the init
	// marks them close-on-exec again before it starts the command.
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	res, err := reexec.Run(ctx, reexec.Spec{
		Arg0: initArg0, Env: env, Output: output,
		Files:    append([]*os.File{cfgR}, extra...), // configFD, (statusFD,) ramFD
		StatusFD: statusFD,
		Sys:      sysProcAttr(newNet(cfg.Net)),
		Started: func(pid int) {
			// Our read end closed: should the init die, the write fails
			// instead of blocking.
			cfgR.Close()
			if started != nil {
				if startedErr = started(pid); startedErr != nil {
					cfgW.Close() // the init fails on an empty configuration
					return
				}
			}
			// The configuration can exceed a pipe's buffer (thousands of
			// deletions): write it while the init reads. A failed write
			// means the init died, which its missing report says.
			go func() {
				_, _ = cfgW.Write(cfgJSON)
				cfgW.Close()
			}()
		},
		// SIGKILL to PID 1 of a PID namespace kills every process in it
		// (pid_namespaces(7)).
		Stop: func(p *os.Process, _ <-chan struct{}) { _ = p.Kill() },
		// Processes the command left behind die with the PID namespace
		// when the init exits, which closes the output pipe; WaitDelay
		// only guards against the unexpected.
		WaitDelay: 5 * time.Second,
	})
	if err != nil {
		cfgR.Close()
		cfgW.Close()
		return nil, startError(err)
	}
	if startedErr != nil {
		return nil, startedErr
	}
	var st initStatus
	if ok, err := res.Decode(&st, "sandbox init"); !ok {
		return nil, err
	}
	if st.Error != "" {
		return &st, &InitError{Stage: st.Stage, Msg: st.Error, Errno: st.Errno}
	}
	return &st, nil
}

// sysProcAttr asks for new mount and PID namespaces, plus a user namespace
// mapping only the caller's own uid and gid when not root, so the command
// sees the same ids as outside. The init gets what mounting needs as
// ambient capabilities so they survive its execve (capabilities(7)), and
// clears them before starting the command. overlayfs does its upper-dir work
// with the mounter's credentials and probes the work dir, which it creates
// with mode 000, at mount time: without CAP_DAC_OVERRIDE the mount fails with
// EACCES ("upper fs does not support tmpfile"); FOWNER, CHOWN and FSETID let
// copy-up keep owners and modes; NET_ADMIN brings lo up in the hypothesis's
// own network namespace (every --net but host);
// SETPCAP lets it empty the bounding set before the command starts.
// An IPC namespace of its own: the SysV segments, message queues and
// semaphores and the POSIX message queues a command makes go with it
// (ipc_namespaces(7)), and it reaches no one else's.
func sysProcAttr(ownNet bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC,
		Pdeathsig:  syscall.SIGKILL,
	}
	if ownNet {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if uid := os.Geteuid(); uid != 0 {
		gid := os.Getegid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		attr.AmbientCaps = []uintptr{unix.CAP_SETPCAP, unix.CAP_SYS_ADMIN, unix.CAP_DAC_OVERRIDE, unix.CAP_DAC_READ_SEARCH, unix.CAP_FOWNER, unix.CAP_CHOWN, unix.CAP_FSETID, unix.CAP_MKNOD, unix.CAP_NET_ADMIN}
	}
	return attr
}

// collect reads the named files from the upper dir: only what the command
// wrote counts, never a stale copy in the workspace. The command made
// these entries, and shadow reads them outside the namespace: each is
// opened beneath upper without following any symlink (a report.xml linking
// to ~/.ssh/id_rsa is not read), without blocking (a FIFO is not waited
// on), and only if it is a regular file of at most maxCollect bytes.
func collect(upper string, paths []string) map[string][]byte {
	if len(paths) == 0 {
		return nil
	}
	got := map[string][]byte{}
	for _, p := range paths {
		if b, err := readBeneath(upper, p); err == nil {
			got[p] = b
		}
	}
	return got
}

// maxCollect bounds a collected file (a JUnit report).
const maxCollect = 64 << 20

func readBeneath(root, rel string) ([]byte, error) {
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Openat2(dir, filepath.FromSlash(rel), &how)
	unix.Close(dir)
	if errors.Is(err, unix.ENOSYS) {
		// openat2(2) is Linux 5.6: check each component by hand.
		fd, err = openNoSymlinks(root, rel)
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxCollect {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", rel, maxCollect)
	}
	return io.ReadAll(io.LimitReader(f, maxCollect))
}

// openNoSymlinks opens root/rel refusing a symlink at every component.
func openNoSymlinks(root, rel string) (int, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	for i, part := range parts {
		if part == ".." || part == "." || part == "" {
			unix.Close(dir)
			return -1, fmt.Errorf("%s: not a plain relative path", rel)
		}
		flags := unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i == len(parts)-1 {
			flags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
		}
		next, err := unix.Openat(dir, part, flags, 0)
		unix.Close(dir)
		if err != nil {
			return -1, err
		}
		dir = next
	}
	return dir, nil
}

// checkOutside refuses a sandbox dir inside the workspace: overlayfs
// refuses an upper dir inside its own lower dir, and it would show up in
// the hypothesis's view.
func checkOutside(base, workspace string) error {
	rel, err := filepath.Rel(workspace, base)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("sandbox directory %s is inside the workspace %s: set XDG_STATE_HOME to a directory outside it", base, workspace)
	}
	return nil
}

// InitError is a failure of the sandbox set-up inside the namespaces.
type InitError struct {
	Stage string // which step: "mount overlay on /ws", "make / private", ...
	Msg   string
	Errno string
}

func (e *InitError) Error() string { return "sandbox: " + e.Stage + ": " + e.Msg }

// startError turns a failure to create the namespaces into advice.
func startError(err error) error {
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EINVAL) {
		return &InitError{Stage: "create namespaces", Msg: err.Error() + " (user namespaces are unavailable: see `shadow probe`)", Errno: errnoName(err)}
	}
	return fmt.Errorf("start sandbox: %w", err)
}
