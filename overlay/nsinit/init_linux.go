package nsinit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/quietterm"
	"github.com/shadow-dev/shadow/internal/sandbox/entry"
	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

// point is the sandbox init in shadow's table of hidden entry points. It
// is Early: registering it from this package's init takes over a process
// started as the init before the packages it never uses are initialized
// (see the package comment).
var point = entry.Point{Name: "the sandbox init (overlay mode, inside the namespaces)", Arg0: Arg0, Early: true, Main: initMain}

func init() { entry.Register(point) }

// MaybeInit runs the sandbox init and exits if this process was started as
// one; otherwise it returns at once. The package's init function does it;
// it is exported for TestMain of packages whose tests re-execute the test
// binary.
func MaybeInit() { entry.Maybe(point) }

func initMain() int {
	// quietterm's init, which ran before this one, hid TERM (main puts it
	// back, but the init never gets there): the command must see the
	// caller's.
	quietterm.Restore()
	// Capabilities, no_new_privs and PR_SET_PDEATHSIG are per thread, and a
	// child inherits the credentials of the thread that forks it
	// (capabilities(7), prctl(2)): do everything on one thread.
	runtime.LockOSThread()
	return runInit()
}

func runInit() int {
	// Whatever shadow's caller leaked to shadow, and shadow to us, stays
	// here: the command gets fds 0-2 only.
	CloseInheritedFDs()
	// Not dumpable: the command, same uid, can then neither ptrace the init
	// nor open /proc/1/cwd, /proc/1/root or /proc/1/fd (ptrace_may_access,
	// proc(5)), which would lead outside the mounts. runc's init does the
	// same.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	status := os.NewFile(StatusFD, "status")
	report := func(st Status) {
		if status != nil {
			_ = json.NewEncoder(status).Encode(st)
		}
	}
	cfg, err := readConfig()
	if err != nil {
		report(Status{Stage: "config", Error: err.Error()})
		return 125
	}
	if stage, err := applyLimits(cfg.LimitConfig); err != nil {
		report(Status{Stage: stage, Error: err.Error(), Errno: ErrnoName(err)})
		return 125
	}
	st, err := setupMounts(&cfg)
	if err != nil {
		report(st)
		return 125
	}
	// The init's own cwd was the real directory under the mount (it
	// inherited shadow's); move it into the shadow so nothing reached
	// through the init leads to the checkout.
	if err := unix.Chdir(cfg.Dir); err != nil {
		st.Stage, st.Error, st.Errno = "enter "+cfg.Dir, err.Error(), ErrnoName(err)
		report(st)
		return 125
	}
	if err := dropPrivileges(); err != nil {
		st.Stage, st.Error, st.Errno = "drop privileges", err.Error(), ErrnoName(err)
		report(st)
		return 125
	}
	// The probe goes as far as a real run does, short of the command: a
	// machine where the masks or the privilege drop fail is not one where
	// overlay shadows work.
	if cfg.Probe {
		report(st)
		return 0
	}
	exit, sig, err := runCommand(&cfg)
	if guardErr != nil {
		st.Warnings = append(st.Warnings, "pathname unix sockets outside the shadow stayed reachable but for those listed at start (the socket guard: "+guardErr.Error()+")")
	}
	if err != nil {
		st.Stage, st.Error, st.Errno = "start command", err.Error(), ErrnoName(err)
		report(st)
		return 125
	}
	st.Exit, st.Signal = exit, sig
	st.MaxRSSKiB = childrenMaxRSS()
	report(st)
	if sig != "" {
		return 128
	}
	return exit
}

// readConfig reads the configuration the parent writes into ConfigFD and
// closes it.
func readConfig() (Config, error) {
	var cfg Config
	f := os.NewFile(ConfigFD, "config")
	if f == nil {
		return cfg, errors.New("no configuration descriptor")
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return cfg, fmt.Errorf("read configuration: %w", err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return cfg, fmt.Errorf("parse configuration: %w", err)
	}
	if len(cfg.Argv) == 0 && !cfg.Probe {
		return cfg, errors.New("no command")
	}
	return cfg, nil
}

// runCommand starts the command and stays as PID 1: it forwards signals to
// the command's process group and reaps every child (orphans are
// re-parented to PID 1 in a PID namespace, pid_namespaces(7)) until the
// command itself exits.
func runCommand(cfg *Config) (exit int, sig string, err error) {
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
	// Setsid: a new session with no controlling terminal, so the command
	// cannot open /dev/tty or TIOCSTI keystrokes into shadow's terminal
	// (tty_ioctl(4): TIOCSTI needs the terminal to be the caller's
	// controlling one without CAP_SYS_ADMIN; bubblewrap's CVE-2017-5226).
	// The session's process group is the command's pid, so kill(-pid)
	// still reaches the group.
	// Keys outlive the command in the user keyring (for root, whom no
	// user namespace separates, the host's) and in the session keyring
	// it inherits from shadow: add_key, keyctl and request_key are
	// refused, as Docker's default seccomp profile does. SysV IPC and
	// POSIX message queues are the command's own in its IPC namespace.
	if err := landlock.RefuseIPC(false); err != nil {
		return 0, "", fmt.Errorf("refuse keyrings: %w", err)
	}
	// Pathname unix sockets, decided at connect (sockets_linux.go).
	var serve func()
	if procFresh {
		if serve, err = landlock.GuardSockets(ownSocket); err != nil {
			guardErr = err
		}
	} else {
		guardErr = errors.New("no /proc of the hypothesis's own")
	}
	pid, err := syscall.ForkExec(argv0, cfg.Argv, &syscall.ProcAttr{
		Dir:   cfg.Dir,
		Env:   os.Environ(),
		Files: []uintptr{devnull.Fd(), 1, 2},
		Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	devnull.Close()
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", cfg.Argv[0], err)
	}
	if serve != nil {
		go serve()
	}
	// The command inherited the raised oom_score_adj; the init goes back
	// to its own, so a hypothesis over its memory cap loses a process of
	// the command, not the init that reports (limits_linux.go).
	restoreInitOOM()
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

// guardErr says why the socket guard is missing, if it is.
var guardErr error

// ErrnoName is err's errno as its name (EPERM), "" when it has none.
func ErrnoName(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		if n := unix.ErrnoName(en); n != "" {
			return n
		}
		return fmt.Sprint(int(en))
	}
	return ""
}
