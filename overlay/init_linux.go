package overlay

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// MaybeInit runs the sandbox init and exits if this process was started as
// one; otherwise it returns at once. main (and TestMain of packages whose
// tests re-execute the test binary) must call it before anything else.
func MaybeInit() {
	if len(os.Args) == 0 || os.Args[0] != initArg0 {
		return
	}
	// Ambient capabilities and PR_SET_PDEATHSIG are per thread, and a child
	// inherits the credentials of the thread that forks it (capabilities(7),
	// prctl(2)): do everything on one thread.
	runtime.LockOSThread()
	os.Exit(runInit())
}

func runInit() int {
	status := os.NewFile(3, "status")
	report := func(st initStatus) {
		if status != nil {
			_ = json.NewEncoder(status).Encode(st)
		}
	}
	var cfg initConfig
	if err := json.Unmarshal([]byte(os.Getenv(configEnv)), &cfg); err != nil {
		report(initStatus{Stage: "config", Error: err.Error()})
		return 125
	}
	os.Unsetenv(configEnv)
	st, err := setupMounts(&cfg)
	if err != nil {
		report(st)
		return 125
	}
	if cfg.Probe {
		report(st)
		return 0
	}
	// The init keeps CAP_SYS_ADMIN only for the mounts above; the command
	// must run with no extra privilege. Clearing the ambient set makes the
	// command's execve(2) compute empty permitted/effective sets for a
	// non-root uid (capabilities(7), "Transformation of capabilities during
	// execve()").
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && os.Getuid() != 0 {
		report(initStatus{Stage: "drop capabilities", Error: err.Error(), Errno: errnoName(err)})
		return 125
	}
	if os.Getuid() != 0 {
		// The inheritable set held the same capabilities so they could be
		// ambient; emptied, a file with inheritable file capabilities
		// cannot pick them up either.
		if err := clearInheritable(); err != nil {
			report(initStatus{Stage: "drop capabilities", Error: err.Error(), Errno: errnoName(err)})
			return 125
		}
	}
	exit, sig, err := runCommand(&cfg)
	if err != nil {
		st.Stage, st.Error, st.Errno = "start command", err.Error(), errnoName(err)
		report(st)
		return 125
	}
	st.Exit, st.Signal = exit, sig
	report(st)
	if sig != "" {
		return 128
	}
	return exit
}

// clearInheritable empties this thread's inheritable capability set
// (capset(2)); the thread is the one that forks the command.
func clearInheritable() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	return unix.Capset(&hdr, &data[0])
}

// setupMounts builds the hypothesis's view: a private mount tree, the
// overlay on the workspace's own path, deletions, /proc, /tmp, lo.
func setupMounts(cfg *initConfig) (initStatus, error) {
	var st initStatus
	fail := func(stage string, err error) (initStatus, error) {
		st.Stage, st.Error, st.Errno = stage, err.Error(), errnoName(err)
		return st, err
	}
	// Without MS_PRIVATE a mount could propagate back to the parent
	// namespace through a shared peer group (mount_namespaces(7)).
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fail("make / private", err)
	}
	// A private /tmp must be mounted before the overlay: mounted after, it
	// would hide a workspace that lives under /tmp. The layers are then
	// reached through descriptors opened before the tmpfs covers them
	// (overlayfs resolves /proc/self/fd/N like any path at mount time), and
	// the workspace's path is made again inside the fresh tmpfs.
	layers := append(append([]string{}, cfg.Lowers...), cfg.Lower, cfg.Upper, cfg.Work)
	if cfg.Tmp == "private" {
		for i, dir := range layers {
			fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return fail("open "+dir, err)
			}
			defer unix.Close(fd)
			layers[i] = fmt.Sprintf("/proc/self/fd/%d", fd)
		}
		if err := unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			return fail("mount tmpfs on /tmp", err)
		}
		if err := os.MkdirAll(cfg.Lower, 0o755); err != nil {
			return fail("recreate "+cfg.Lower+" in the private /tmp", err)
		}
	}
	n := len(layers)
	lower := escapeOpt(layers[n-3])
	for i := n - 4; i >= 0; i-- {
		lower = escapeOpt(layers[i]) + ":" + lower
	}
	var lastErr error
	for _, opts := range cfg.Options {
		data := "lowerdir=" + lower + ",upperdir=" + escapeOpt(layers[n-2]) + ",workdir=" + escapeOpt(layers[n-1])
		if opts != "" {
			data += "," + opts
		}
		if err := unix.Mount("overlay", cfg.Lower, "overlay", 0, data); err != nil {
			lastErr = err
			continue
		}
		st.Options, lastErr = opts, nil
		break
	}
	if lastErr != nil {
		return fail("mount overlay on "+cfg.Lower, lastErr)
	}
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
	}
	if cfg.Net == "isolated" {
		if err := loopbackUp(); err != nil {
			return fail("bring up lo", err)
		}
	}
	if cfg.Probe {
		// Prove the mount works both ways: a write lands in upper, a
		// deletion leaves a whiteout.
		if err := os.WriteFile(filepath.Join(cfg.Lower, "probe-write"), []byte("ok"), 0o644); err != nil {
			return fail("write through overlay", err)
		}
		if err := os.Remove(filepath.Join(cfg.Lower, "probe-delete")); err != nil {
			return fail("delete through overlay", err)
		}
	}
	return st, nil
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

// runCommand starts the command and stays as PID 1: it forwards signals to
// the command's process group and reaps every child (orphans are
// re-parented to PID 1 in a PID namespace, pid_namespaces(7)) until the
// command itself exits.
func runCommand(cfg *initConfig) (exit int, sig string, err error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, "", err
	}
	argv0, err := fsutil.LookPath(cfg.Argv[0], os.Getenv("PATH"), cfg.Dir)
	if err != nil {
		return 0, "", err
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2)
	pid, err := syscall.ForkExec(argv0, cfg.Argv, &syscall.ProcAttr{
		Dir:   cfg.Dir,
		Env:   os.Environ(),
		Files: []uintptr{devnull.Fd(), 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	devnull.Close()
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", cfg.Argv[0], err)
	}
	go func() {
		for s := range sigs {
			_ = unix.Kill(-pid, s.(syscall.Signal))
		}
	}()
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, "", err
		}
		if got != pid {
			continue // an orphan re-parented to us
		}
		if ws.Signaled() {
			return -1, unix.SignalName(ws.Signal()), nil
		}
		return ws.ExitStatus(), "", nil
	}
}

func errnoName(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		if n := unix.ErrnoName(en); n != "" {
			return n
		}
		return fmt.Sprint(int(en))
	}
	return ""
}
