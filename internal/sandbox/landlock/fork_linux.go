package landlock

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/internal/sandbox/entry"
)

// stageArg0 is argv[0] of the re-executed stage; stageEnv carries its
// configuration, removed before the command's exec.
const (
	stageArg0 = "shadow-seal"
	stageEnv  = "SHADOW_SEAL"
)

// Stage is what the stage gets: the policy and the command (Path
// resolved by the helper, Argv as the command sees it).
type stage struct {
	Policy Policy   `json:"policy"`
	Path   string   `json:"path"`
	Argv   []string `json:"argv"`
}

// StageExitSealFailed is the stage's exit status when a required seal
// could not be applied: the command never ran.
const StageExitSealFailed = 125

// Supported says whether a stage can be used here.
func Supported() bool { return true }

// Stage returns the argv, path and environment with which the process
// helper starts path (argv) sealed by p: this binary (self, e.g.
// /proc/self/exe) re-executed as the stage, which applies p and execs
// path in place of itself, same pid.
func Stage(self string, p Policy, path string, argv, env []string) (string, []string, []string, error) {
	b, err := json.Marshal(stage{Policy: p, Path: path, Argv: argv})
	if err != nil {
		return "", nil, nil, err
	}
	return self, []string{stageArg0}, append(append([]string{}, env...), stageEnv+"="+string(b)), nil
}

// point is the stage in the table of hidden entry points; Early: it
// takes the process over from this package's init, before any package it
// never uses is initialised, so each sealed command start pays only the
// Go runtime's start and this package's (see internal/sandbox/entry).
var point = entry.Point{Name: "the Landlock stage (copy and in-place modes)", Arg0: stageArg0, Early: true, Main: stageMain}

func init() { entry.Register(point) }

// MaybeStage applies the policy and execs the command if this process
// was started as the stage; otherwise it returns at once.
func MaybeStage() { entry.Maybe(point) }

// stageMain applies the policy and execs the command in place of this
// process; it returns only when it could not.
func stageMain() int {
	var st stage
	raw := os.Getenv(stageEnv)
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, stageEnv+"=") {
			env = append(env, kv)
		}
	}
	if err := json.Unmarshal([]byte(raw), &st); err != nil || st.Path == "" || len(st.Argv) == 0 {
		fmt.Fprintln(os.Stderr, "[shadow sandbox] unreadable seal configuration")
		return StageExitSealFailed
	}
	// landlock_restrict_self and no_new_privs act on the calling thread
	// (landlock(7)); the exec from the same thread makes its credentials
	// the new program's (go-landlock's NewRulesetFD, example 1). Never
	// unlocked.
	runtime.LockOSThread()
	if _, err := st.Policy.restrictThread(); err != nil {
		if st.Policy.Required {
			fmt.Fprintf(os.Stderr, "[shadow sandbox] --require-seal: Landlock could not seal the command: %v\n", err)
			return StageExitSealFailed
		}
		fmt.Fprintf(os.Stderr, "[shadow sandbox] Landlock could not seal the command (%v): it runs unsealed, guarded against accidents only\n", err)
	}
	err := syscall.Exec(st.Path, st.Argv, env)
	fmt.Fprintf(os.Stderr, "[shadow sandbox] start %s: %v\n", st.Argv[0], err)
	if err == syscall.ENOENT {
		return 127
	}
	return 126
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
