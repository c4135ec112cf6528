package landlock

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ErrUnsealed wraps why ForkExecSealed could not seal (not Required):
// the caller then starts the command unsealed, saying why.
type ErrUnsealed struct{ Why error }

func (e *ErrUnsealed) Error() string { return "Landlock could not seal the command: " + e.Why.Error() }

// Sealed says what sealed a command ForkExecSealed started.
type Sealed struct {
	ABI int // the Landlock ABI enforced
	// Open names a route left open that this ABI would close with the
	// socket guard, and why the guard is missing ("" when none is).
	Open string
}

// String is the report's seal: "landlock abi 7", and what stayed open.
func (s Sealed) String() string {
	if s.Open == "" {
		return Seal(s.ABI)
	}
	return Seal(s.ABI) + " (" + s.Open + ")"
}

// ForkExecSealed starts path (argv) as syscall.ForkExec does, sealed by
// p: Prepare, then the Sealer's ForkExec.
func ForkExecSealed(p Policy, path string, argv []string, attr *syscall.ProcAttr) (pid int, sealed Sealed, err error) {
	return Prepare(p).ForkExec(path, argv, attr)
}

// A Sealer is a thread of its own, already sealed, waiting to fork one
// command: Prepare starts it, so that the thread's creation, the
// ruleset, the socket filter and the capabilities (about 1 ms on a
// loaded machine, mostly the new thread) are paid while the process
// helper waits for shadow's go-ahead, not after it.
type Sealer struct {
	p     Policy
	ready chan prepared
	fork  chan forkReq
}

type prepared struct {
	sealed Sealed
	guard  int
	err    error
}

type forkReq struct {
	prep func() (string, []string, *syscall.ProcAttr, error)
	done chan forked
}

type forked struct {
	pid int
	err error
}

// Prepare seals a thread of its own with p and has it wait for ForkExec:
// no_new_privs and landlock_restrict_self act on the calling thread
// (landlock(7)), so the command the thread forks inherits the domain,
// and the thread then ends (a goroutine that exits locked takes its
// thread with it, and the Go runtime never clones a new thread from a
// locked one). No thread of the caller stays in the command's domain:
// the command can neither signal nor ptrace the process helper, only its
// own domain. Below ABI 9 the same thread takes the socket guard's
// seccomp filter, and the guard answers the command's socket calls from
// a goroutine of the caller until the command's last process is gone
// (sockguard_linux.go). Last, the thread drops every capability
// (caps_linux.go). A Sealer never used leaves its thread waiting; the
// process helper, which seals one command, exits anyway.
func Prepare(p Policy) *Sealer {
	s := &Sealer{p: p, ready: make(chan prepared, 1), fork: make(chan forkReq)}
	go func() {
		// Never unlocked: the restricted thread must not run anything
		// else, and ends with this goroutine.
		runtime.LockOSThread()
		r := s.seal()
		s.ready <- r
		if r.err != nil {
			return
		}
		req := <-s.fork
		path, argv, attr, err := req.prep()
		if err != nil {
			req.done <- forked{err: err}
			return
		}
		pid, err := syscall.ForkExec(path, argv, attr)
		req.done <- forked{pid, err}
	}()
	return s
}

// seal applies the policy to the calling (locked) thread.
func (s *Sealer) seal() prepared {
	p := s.p
	abi, err := p.restrictThread()
	if err != nil {
		if !p.Required {
			err = &ErrUnsealed{Why: err}
		}
		return prepared{err: err, guard: -1}
	}
	r := prepared{sealed: Sealed{ABI: abi}, guard: -1}
	// SysV IPC, POSIX message queues and keys outlive the command
	// (ipcfilter_linux.go).
	if err := RefuseIPC(true); err != nil {
		if !p.Required {
			err = &ErrUnsealed{Why: err}
		}
		return prepared{err: err, guard: -1}
	}
	// The guard stays at ABI 9 too, for the metadata calls no Landlock
	// right covers (metacalls_linux.go).
	if !guardOff {
		fd, err := -1, guardUsable()
		if err == nil {
			fd, err = installSockFilter(true)
		}
		switch {
		case errors.Is(err, unix.EBUSY):
			// Shadow inside a sealed command: the outer guard, whose
			// filter this thread carries, answers.
		case err != nil:
			r.sealed.Open = "pathname unix sockets and metadata outside reachable: " + err.Error()
		default:
			r.guard = fd
		}
	}
	// Last, since the socket filter's seccomp(2) and the ruleset need
	// nothing it drops (no_new_privs stands in for CAP_SYS_ADMIN).
	if err := dropCaps(); err != nil {
		if r.guard >= 0 {
			unix.Close(r.guard)
		}
		if !p.Required {
			err = &ErrUnsealed{Why: err}
		}
		return prepared{err: err, guard: -1}
	}
	return r
}

// ForkExec starts path (argv) as syscall.ForkExec does, from the sealed
// thread. Since that thread ends at once, attr must not ask for
// Pdeathsig (it would fire). Without Landlock, or when the policy could
// not be applied, it returns *ErrUnsealed unless the policy is Required,
// then the error itself; nothing started.
func (s *Sealer) ForkExec(path string, argv []string, attr *syscall.ProcAttr) (int, Sealed, error) {
	return s.ForkExecWhen(func() (string, []string, *syscall.ProcAttr, error) { return path, argv, attr, nil })
}

// ForkExecWhen is ForkExec of what prep returns, prep run on the sealed
// thread itself just before the fork: the process helper's wait for
// shadow's go-ahead goes there, so that the command starts as soon as the
// go-ahead comes, without a wake-up of another thread in between (on a
// loaded machine each costs a scheduling delay). prep's error is returned
// as it is, nothing started; prep does not run when the thread could not
// be sealed (the error is then ForkExec's).
func (s *Sealer) ForkExecWhen(prep func() (string, []string, *syscall.ProcAttr, error)) (int, Sealed, error) {
	r := <-s.ready
	if r.err != nil {
		return 0, r.sealed, r.err
	}
	done := make(chan forked, 1)
	s.fork <- forkReq{prep, done}
	f := <-done
	if r.guard >= 0 {
		if f.err != nil {
			unix.Close(r.guard)
		} else {
			go newSockGuard(r.guard, s.p).serve()
		}
	}
	return f.pid, r.sealed, f.err
}

// guardOff leaves the socket guard out (benchmarks compare the cost).
var guardOff bool

// resolveUnixABI is the Landlock ABI whose filesystem rules cover
// connect(2) and sendmsg(2) to pathname unix sockets
// (LANDLOCK_ACCESS_FS_RESOLVE_UNIX): from it on, the Write rule grants
// it and the kernel refuses the rest, with no socket guard.
const resolveUnixABI = 9

// restrictThread applies p to the calling thread, which the caller has
// locked: no_new_privs first (landlock_restrict_self requires it without
// CAP_SYS_ADMIN), then the ruleset, each right at the best ABI the
// kernel offers. It returns the ABI enforced (0: nothing could be).
func (p Policy) restrictThread() (int, error) {
	abi, why := Status()
	if abi == 0 {
		return 0, fmt.Errorf("%s", why)
	}
	cfg := ll.V11.BestEffort()
	if !p.Net {
		cfg.HandledAccessNet = 0
	}
	// Read and execute everything but /dev (granted by node) and the
	// hidden paths: the command needs its toolchain and the user's
	// caches, as bubblewrap's --ro-bind / / and Codex's Landlock policy
	// give (readable_linux.go).
	rules := append(readRules(p.Hidden),
		// Refer: renames and links between directories (a build moving
		// a temp file into place) are refused without it (EXDEV).
		// Resolve-unix (ABI 9): the sockets the command binds there.
		ll.RWDirs(p.Write...).WithRefer().WithResolveUnix(),
		ll.RWFiles(p.Devices...).IgnoreIfMissing(),
	)
	for _, port := range p.Ports {
		rules = append(rules, ll.ConnectTCP(port), ll.BindTCP(port))
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return 0, err
	}
	if fd < 0 {
		return 0, fmt.Errorf("no Landlock right to enforce")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("PR_SET_NO_NEW_PRIVS: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return 0, fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return abi, nil
}
