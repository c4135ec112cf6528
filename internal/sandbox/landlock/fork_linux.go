package landlock

import (
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

// ForkExecSealed starts path (argv) as syscall.ForkExec does, sealed by
// p: from a thread of its own that applies p to itself (no_new_privs,
// landlock_restrict_self act on the calling thread; landlock(7)) and
// forks, so the command inherits the domain, and that thread then ends
// (a goroutine that exits locked takes its thread with it, and the Go
// runtime never clones a new thread from a locked one). No thread of the
// caller stays in the command's domain: the command can neither signal
// nor ptrace the process helper, only its own domain. Since the forking
// thread ends at once, attr must not ask for Pdeathsig (it would fire).
// Without Landlock, or when p cannot be applied, it returns
// *ErrUnsealed unless p.Required, then the error itself; nothing started.
func ForkExecSealed(p Policy, path string, argv []string, attr *syscall.ProcAttr) (pid, abi int, err error) {
	type result struct {
		pid, abi int
		err      error
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
			ch <- result{err: err}
			return
		}
		pid, err := syscall.ForkExec(path, argv, attr)
		ch <- result{pid: pid, abi: abi, err: err}
	}()
	r := <-ch
	return r.pid, r.abi, r.err
}

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
		ll.RWDirs(p.Write...).WithRefer(),
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
