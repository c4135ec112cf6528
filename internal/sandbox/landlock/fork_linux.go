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
// p: from a thread of its own that applies p to itself (no_new_privs,
// landlock_restrict_self act on the calling thread; landlock(7)) and
// forks, so the command inherits the domain, and that thread then ends
// (a goroutine that exits locked takes its thread with it, and the Go
// runtime never clones a new thread from a locked one). No thread of the
// caller stays in the command's domain: the command can neither signal
// nor ptrace the process helper, only its own domain. Since the forking
// thread ends at once, attr must not ask for Pdeathsig (it would fire).
// Below ABI 9 the same thread also takes the socket guard's seccomp
// filter, and the guard then answers the command's socket calls from a
// goroutine of the caller until the command's last process is gone
// (sockguard_linux.go).
// Without Landlock, or when p cannot be applied, it returns
// *ErrUnsealed unless p.Required, then the error itself; nothing started.
func ForkExecSealed(p Policy, path string, argv []string, attr *syscall.ProcAttr) (pid int, sealed Sealed, err error) {
	type result struct {
		pid    int
		sealed Sealed
		guard  int
		err    error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: the restricted thread must not run anything
		// else, and ends with this goroutine.
		runtime.LockOSThread()
		abi, err := p.restrictThread()
		if err != nil {
			if !p.Required {
				err = &ErrUnsealed{Why: err}
			}
			ch <- result{err: err, guard: -1}
			return
		}
		r := result{sealed: Sealed{ABI: abi}, guard: -1}
		if abi < resolveUnixABI && !guardOff {
			fd, err := installSockFilter()
			switch {
			case errors.Is(err, unix.EBUSY):
				// Shadow inside a sealed command: the outer guard, whose
				// filter this thread carries, answers.
			case err != nil:
				r.sealed.Open = "pathname unix sockets reachable: " + err.Error()
			default:
				r.guard = fd
			}
		}
		// Last, since the socket filter's seccomp(2) and the ruleset
		// need nothing it drops (no_new_privs stands in for
		// CAP_SYS_ADMIN).
		if err := dropCaps(); err != nil {
			r.err = err
			if !p.Required {
				r.err = &ErrUnsealed{Why: err}
			}
			ch <- r
			return
		}
		r.pid, r.err = syscall.ForkExec(path, argv, attr)
		ch <- r
	}()
	r := <-ch
	if r.guard >= 0 {
		if r.err != nil {
			unix.Close(r.guard)
		} else {
			go newSockGuard(r.guard, p).serve()
		}
	}
	return r.pid, r.sealed, r.err
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
	rules := []ll.Rule{
		// Read and execute everything: the command needs its toolchain
		// and the user's caches, as bubblewrap's --ro-bind / / and
		// Codex's Landlock policy give.
		ll.RODirs("/"),
		// Refer: renames and links between directories (a build moving
		// a temp file into place) are refused without it (EXDEV).
		// Resolve-unix (ABI 9): the sockets the command binds there.
		ll.RWDirs(p.Write...).WithRefer().WithResolveUnix(),
		ll.RWFiles(p.Devices...).IgnoreIfMissing(),
	}
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
