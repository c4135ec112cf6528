//go:build linux || darwin

package reaper

import (
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/internal/fsutil"
	"github.com/shadow-dev/shadow/internal/quietterm"
	"github.com/shadow-dev/shadow/internal/sandbox/entry"
	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

// helperArg0 is argv[0] of the re-executed binary; MaybeHelper dispatches
// on it.
const helperArg0 = "shadow-reaper"

// The helper's descriptors: the status socket (the write end of reexec's
// socket pair) and the go-ahead pipe (read end).
const (
	statusFD = 3
	goFD     = 4
)

// helperEnv carries the helper's configuration (JSON); the helper removes
// it from the environment before starting the command.
const helperEnv = "SHADOW_REAPER"

// helperConfig is what Run tells the helper.
type helperConfig struct {
	Argv   []string      `json:"argv"`
	Dir    string        `json:"dir"`    // the command's working directory
	Parent int           `json:"parent"` // shadow's pid: gone means shadow died
	Grace  time.Duration `json:"grace"`  // SIGTERM to SIGKILL
	// Seal, when set, is the Landlock policy the command starts under
	// (copy and in-place modes; see package landlock).
	Seal *landlock.Policy `json:"seal,omitempty"`
}

// Status is what the helper reports on fd 3 before it exits.
type Status struct {
	Stage  string `json:"stage,omitempty"` // step that failed, when Error is set
	Error  string `json:"error,omitempty"`
	Exit   int    `json:"exit"`
	Signal string `json:"signal,omitempty"`
	// Ended counts the processes still running when the command had
	// ended (or was ended), which the helper then ended: daemons, setsid
	// and double-forked children.
	Ended int `json:"ended"`
	// Ending says why the helper ended the command: "" (it exited), or
	// the signal shadow sent (timeout, cancel), or "parent died".
	Ending string `json:"ending,omitempty"`
	// Seal is what sealed the command ("landlock abi 7"), "" when it ran
	// unsealed; SealWhy then says why (no Landlock here, and what would
	// give it).
	Seal    string `json:"seal,omitempty"`
	SealWhy string `json:"seal_why,omitempty"`
}

// point is the process helper in shadow's table of hidden entry points.
// It is Early: registering it from this package's init takes over a
// process started as the helper before the packages it never uses are
// initialized: Go initializes a package as soon as its imports are (the
// Go 1.21 order), and reaper imports nothing heavy, so each hypothesis
// does not pay the TUI's highlighter registry or the parsers' regexps
// (see overlay/nsinit, which does the same).
var point = entry.Point{Name: "the process helper (copy and in-place modes)", Arg0: helperArg0, Early: true, Main: helperMain}

func init() { entry.Register(point) }

// MaybeHelper runs the helper and exits if this process was started as
// one; otherwise it returns at once. The package's init function does it;
// it is exported for TestMain of packages whose tests run copy-mode or
// in-place sandboxes.
func MaybeHelper() { entry.Maybe(point) }

func helperMain() int {
	// quietterm's init, which ran before this one, hid TERM (main puts it
	// back, but the helper never gets there): the command must see the
	// caller's.
	quietterm.Restore()
	// PR_SET_PDEATHSIG of the command fires when the thread that forked
	// it exits (prctl(2)): keep every step on this one thread.
	runtime.LockOSThread()
	return runHelper()
}

func runHelper() int {
	// The status socket must not reach the command: it could forge the
	// report, and a daemon holding it would keep shadow waiting.
	unix.CloseOnExec(statusFD)
	notDumpable()
	status := os.NewFile(statusFD, "status")
	report := func(st Status) {
		if status != nil {
			_ = json.NewEncoder(status).Encode(st)
		}
	}
	var cfg helperConfig
	if err := json.Unmarshal([]byte(os.Getenv(helperEnv)), &cfg); err != nil || len(cfg.Argv) == 0 {
		report(Status{Stage: "config", Error: "unreadable helper configuration"})
		return 125
	}
	os.Unsetenv(helperEnv)
	// The seal's thread is made and sealed now, while shadow records
	// this helper and sends the go-ahead (landlock.Prepare).
	var sealer *landlock.Sealer
	if cfg.Seal != nil {
		sealer = landlock.Prepare(*cfg.Seal)
	}
	// Orphans of the command are re-parented to the nearest subreaper
	// ancestor instead of init (prctl(2) PR_SET_CHILD_SUBREAPER), so
	// however they fork or setsid they stay below the helper, where
	// descendants() finds them.
	if err := becomeSubreaper(); err != nil {
		report(Status{Stage: "become a child subreaper", Error: err.Error()})
		return 125
	}
	sigc := make(chan os.Signal, 8)
	signal.Notify(sigc, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGCHLD)
	// Shadow may have died between fork and PR_SET_PDEATHSIG taking hold.
	if cfg.Parent != 0 && os.Getppid() != cfg.Parent {
		report(Status{Stage: "start", Error: "shadow ended before the command started"})
		return 125
	}
	// The go-ahead: shadow has recorded this helper (in-place mode's
	// journal) where a replay after a crash finds it. A shadow that died
	// before that closed the pipe without a byte: then nothing starts.
	// prep waits for it and readies the command; a sealed command's runs
	// on the seal's thread, which forks as soon as the byte comes.
	unix.CloseOnExec(goFD)
	goAhead := os.NewFile(goFD, "go")
	errPrep := errors.New("not started")
	var fail Status
	failCode := 0
	var devnull *os.File
	prep := func(sys *syscall.SysProcAttr) func() (string, []string, *syscall.ProcAttr, error) {
		return func() (string, []string, *syscall.ProcAttr, error) {
			var b [1]byte
			if n, _ := goAhead.Read(b[:]); n != 1 {
				fail, failCode = Status{Stage: "start", Error: "shadow ended before the command started"}, 125
				return "", nil, nil, errPrep
			}
			goAhead.Close()
			argv0, err := fsutil.LookPath(cfg.Argv[0], os.Getenv("PATH"), cfg.Dir)
			if err != nil {
				fail, failCode = Status{Stage: "start command", Error: err.Error()}, 127
				return "", nil, nil, errPrep
			}
			if devnull, err = os.Open(os.DevNull); err != nil {
				fail, failCode = Status{Stage: "start command", Error: err.Error()}, 125
				return "", nil, nil, errPrep
			}
			return argv0, cfg.Argv, &syscall.ProcAttr{
				Dir: cfg.Dir, Env: os.Environ(),
				Files: []uintptr{devnull.Fd(), os.Stdout.Fd(), os.Stderr.Fd()},
				Sys:   sys,
			}, nil
		}
	}
	forkExec := func(prep func() (string, []string, *syscall.ProcAttr, error)) (int, error) {
		path, argv, attr, err := prep()
		if err != nil {
			return 0, err
		}
		return syscall.ForkExec(path, argv, attr)
	}
	// The seal: a thread of the helper restricts itself, forks the
	// command and ends (landlock.Prepare), so the helper keeps no
	// thread in the command's domain and the command can neither signal
	// nor ptrace it. That thread's end would fire the command's
	// PR_SET_PDEATHSIG, so a sealed command has none: shadow's death still
	// reaches the helper (its own PDEATHSIG), which ends the tree.
	var seal Status
	var pid int
	var err error
	if sealer != nil {
		var sealed landlock.Sealed
		pid, sealed, err = sealer.ForkExecWhen(prep(sealedCommandAttr()))
		var unsealed *landlock.ErrUnsealed
		switch {
		case errors.Is(err, errPrep):
		case errors.As(err, &unsealed):
			seal.SealWhy = unsealed.Why.Error()
			pid, err = forkExec(prep(commandAttr()))
		case err != nil && pid == 0 && cfg.Seal.Required && sealed.ABI == 0:
			report(Status{Stage: "seal", Error: "--require-seal: " + err.Error()})
			return 125
		case err == nil:
			seal.Seal = sealed.String()
		}
	} else {
		pid, err = forkExec(prep(commandAttr()))
	}
	if devnull != nil {
		devnull.Close()
	}
	if errors.Is(err, errPrep) {
		report(fail)
		return failCode
	}
	if err != nil {
		// The error may be false (an errno read from a pipe something
		// else wrote) while the command runs: whatever started below the
		// helper is ended before it says so.
		endTree(0, cfg.Grace, func(unix.WaitStatus) {})
		report(Status{Stage: "start command", Error: "start " + cfg.Argv[0] + ": " + err.Error()})
		return 126
	}
	st := Status{Exit: -1, Seal: seal.Seal, SealWhy: seal.SealWhy}
	parentGone := watchParent(cfg.Parent)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		if ws, ok := reapAll(pid); ok {
			st.Exit, st.Signal = exitOf(ws)
			break
		}
		select {
		case s := <-sigc:
			if s == syscall.SIGCHLD {
				continue
			}
			st.Ending = s.String()
			break wait
		case <-parentGone:
			st.Ending = "parent died"
			break wait
		case <-tick.C:
		}
	}
	st.Ended = endTree(pid, cfg.Grace, func(ws unix.WaitStatus) {
		st.Exit, st.Signal = exitOf(ws)
	})
	report(st)
	if st.Signal != "" {
		return 128
	}
	return st.Exit
}

// reapAll reaps every child that has ended (the command, and orphans
// re-parented to the helper); it reports the command's status once the
// command is among them.
func reapAll(cmd int) (ws unix.WaitStatus, done bool) {
	for {
		var s unix.WaitStatus
		pid, err := unix.Wait4(-1, &s, unix.WNOHANG, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return ws, done
		}
		if pid == cmd {
			ws, done = s, true
		}
	}
}

func exitOf(ws unix.WaitStatus) (int, string) {
	if ws.Signaled() {
		return -1, signalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}

func signalName(s unix.Signal) string {
	switch s {
	case unix.SIGKILL:
		return "SIGKILL"
	case unix.SIGTERM:
		return "SIGTERM"
	case unix.SIGINT:
		return "SIGINT"
	case unix.SIGSEGV:
		return "SIGSEGV"
	case unix.SIGABRT:
		return "SIGABRT"
	case unix.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// endTree ends every descendant of the helper: SIGTERM (and SIGCONT, so a
// stopped one can act on it), up to grace for them to go, then SIGKILL
// until none is left, re-listing each round because a process may have
// forked (or a fork loop gone on) since the last list. It returns how many
// distinct processes it had to signal. onCmd receives the command's status
// if the command is reaped here.
func endTree(cmd int, grace time.Duration, onCmd func(unix.WaitStatus)) int {
	seen := map[int]bool{}
	reap := func() {
		if ws, ok := reapAll(cmd); ok {
			onCmd(ws)
		}
	}
	reap()
	live := descendants(os.Getpid())
	if len(live) == 0 {
		return 0
	}
	for _, p := range live {
		seen[p] = true
		_ = unix.Kill(p, unix.SIGTERM)
		_ = unix.Kill(p, unix.SIGCONT)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		reap()
		if len(descendants(os.Getpid())) == 0 {
			return len(seen)
		}
	}
	// A fork loop makes a new child faster than a list is read, but a
	// process with SIGKILL pending cannot fork (fork(2) fails with a
	// fatal signal pending), so each round the tree shrinks; the bound
	// only guards against the impossible.
	for round := 0; round < 2000; round++ {
		live = descendants(os.Getpid())
		if len(live) == 0 {
			break
		}
		for _, p := range live {
			seen[p] = true
			_ = unix.Kill(p, unix.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
		reap()
	}
	reap()
	return len(seen)
}
