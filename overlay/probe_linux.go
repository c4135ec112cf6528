package overlay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/shadow-dev/shadow/internal/procfs"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/fsutil"
)

// forceFailEnv makes the probe report user namespaces as blocked, so the
// fallback can be exercised on a machine that has them (tests, demos).
const forceFailEnv = "SHADOW_TEST_NO_USERNS"

// Probe tries the real thing: a user-namespace overlay mount of a scratch
// directory whose upper dir lives in base, where real runs put theirs. When
// that fails it tries again with the scratch dir under $TMPDIR, which tells
// "namespaces or overlayfs are unavailable here" (the verdict is in-place,
// with the failed step and its errno) from "this filesystem cannot hold
// upper dirs" (the verdict is overlay, with upper dirs moved to $TMPDIR).
func Probe(base string) Verdict {
	v := Verdict{UserNS: os.Geteuid() != 0, Upper: base, Base: base}
	if os.Getenv(forceFailEnv) == "1" {
		v.Mode, v.Stage, v.Errno = string(engine.ModeInplace), "create namespaces", "EPERM"
		v.Protection = protectionInplace
		v.Reason = "create namespaces failed: EPERM (simulated: " + forceFailEnv + "=1 is set)"
		v.Fix = "unset " + forceFailEnv + " to use overlay shadows"
		return v
	}
	st, err := tryMount(base)
	if err == nil {
		return v.overlay(st, base)
	}
	first := failure(v, err, base)
	scratch := TmpSandboxes()
	if scratch == base {
		return first
	}
	st2, err2 := tryMount(scratch)
	if err2 != nil {
		// Namespaces or overlayfs themselves: the scratch dir's failure is
		// the one to fix.
		return failure(v, err2, scratch)
	}
	v = v.overlay(st2, scratch)
	v.Reason += fmt.Sprintf("; upper dirs are made in %s because %s", scratch, first.Reason)
	v.Fix = "to keep upper dirs in the state dir, set XDG_STATE_HOME to a directory on ext4, xfs, btrfs or tmpfs"
	return v
}

// TmpSandboxes is the upper-dir location used when the state dir cannot
// hold them: $TMPDIR/shadow-UID/sandboxes.
func TmpSandboxes() string { return filepath.Join(TmpRoot(), "sandboxes") }

// What each mode guards against, for the verdict and `shadow probe`.
const (
	protectionInplace = "accidents only: the command runs as you in the checkout itself, with no namespace, and can write whatever you can"
)

func (v Verdict) overlay(st *initStatus, upper string) Verdict {
	v.Mode, v.Options, v.Proc, v.Upper = string(engine.ModeOverlay), []string{st.Options}, st.Proc, upper
	v.Protection = ProtectionLine()
	v.Reason = "overlayfs mounts in a new mount namespace"
	if v.UserNS {
		v.Reason += " inside an unprivileged user namespace"
	}
	if st.Options != "" {
		v.Reason += " (options " + st.Options + ")"
	}
	return v
}

// probeError is a failed probe step.
type probeError struct {
	stage string
	err   error
}

func (e *probeError) Error() string { return e.err.Error() }

func failure(v Verdict, err error, base string) Verdict {
	v.Mode, v.Protection = string(engine.ModeInplace), protectionInplace
	pe := &probeError{stage: "sandbox", err: err}
	errors.As(err, &pe)
	v.Stage, v.Errno = pe.stage, errnoName(pe.err)
	var ie *InitError
	if errors.As(pe.err, &ie) {
		v.Stage, v.Errno = ie.Stage, ie.Errno
	}
	v.Reason = fmt.Sprintf("%s failed: %v", v.Stage, pe.err)
	if v.Errno != "" && !strings.Contains(v.Reason, v.Errno) {
		v.Reason += " (" + v.Errno + ")"
	}
	v.Layer, v.Fix = blocker(v, advice(v, base))
	return v
}

// tryMount mounts an overlay of a scratch dir, upper dir in base, in new
// namespaces, has the init write and delete inside it, and checks that
// both went to the upper dir.
func tryMount(base string) (*initStatus, error) {
	fail := func(stage string, err error) (*initStatus, error) {
		return nil, &probeError{stage: stage, err: err}
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return fail("create "+base, err)
	}
	dir, err := os.MkdirTemp(base, probePrefix)
	if err != nil {
		return fail("create scratch dir in "+base, err)
	}
	defer fsutil.RemoveTree(dir)
	lower, upper, work := filepath.Join(dir, "lower"), filepath.Join(dir, "upper"), filepath.Join(dir, "work")
	for _, d := range []string{lower, upper, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fail("create scratch dir", err)
		}
	}
	if err := os.WriteFile(filepath.Join(lower, "probe-delete"), nil, 0o600); err != nil {
		return fail("create scratch file", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := startInit(ctx, initConfig{
		Lower: lower, Upper: upper, Work: work, Options: defaultOptions(), Probe: true, Dir: lower,
	}, os.Environ(), io.Discard)
	if err != nil {
		return fail("sandbox", err)
	}
	if st == nil {
		return fail("sandbox", errors.New("probe timed out"))
	}
	// The lower dir must be untouched: the write and the deletion went to
	// upper (the deletion as a whiteout).
	if _, err := os.Stat(filepath.Join(lower, "probe-delete")); err != nil {
		return fail("check lower dir", errors.New("a deletion inside the overlay reached the lower dir"))
	}
	if _, err := os.Stat(filepath.Join(upper, "probe-write")); err != nil {
		return fail("check upper dir", errors.New("a write inside the overlay did not reach the upper dir"))
	}
	return st, nil
}

// CachedProbe returns the verdict cached for this boot and binary version,
// probing when there is none. A verdict is only valid for the boot it was
// made in: sysctls and modules change across reboots.
func CachedProbe(base, cacheFile, version string) Verdict {
	boot := bootID()
	if os.Getenv(forceFailEnv) != "1" {
		if b, err := os.ReadFile(cacheFile); err == nil {
			var v Verdict
			if json.Unmarshal(b, &v) == nil && v.BootID == boot && boot != "" && v.Version == version && v.Base == base {
				v.Cached = true
				// What the mode protects against is this build's to say,
				// not the cache's.
				v.Protection = protectionInplace
				if v.Mode == string(engine.ModeOverlay) {
					v.Protection = ProtectionLine()
				}
				return v
			}
		}
	}
	v := Probe(base)
	v.BootID, v.Version = boot, version
	if os.Getenv(forceFailEnv) != "1" {
		if b, err := json.MarshalIndent(v, "", "  "); err == nil {
			_ = os.MkdirAll(filepath.Dir(cacheFile), 0o700)
			_ = fsutil.WriteFileAtomic(cacheFile, b, 0o600, false)
		}
	}
	return v
}

func bootID() string { return procfs.BootID() }

// advice says what to do about a failed probe: how to get overlay shadows
// back. What runs do meanwhile (copy mode, else in place) is not the
// probe's to say: internal/sandbox.Explain says it, from the same decision
// a run makes.
func advice(v Verdict, base string) string {
	readSysctl := func(p string) string {
		b, _ := os.ReadFile(p)
		return strings.TrimSpace(string(b))
	}
	denied := v.Errno == "EPERM" || v.Errno == "EACCES"
	switch {
	case v.UserNS && denied && readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
		// Ubuntu 24.04: the user namespace is created, but AppArmor's
		// unprivileged_userns profile takes every capability in it, so the
		// first mount fails, whichever step that is.
		exe, _ := os.Executable()
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		return "AppArmor forbids unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu 24.04's default).\n" +
			"Either allow only shadow, with this profile in /etc/apparmor.d/shadow:\n\n" +
			"  abi <abi/4.0>,\n  include <tunables/global>\n\n" +
			"  profile shadow " + exe + " flags=(unconfined) {\n    userns,\n\n    include if exists <local/shadow>\n  }\n\n" +
			"  then: sudo apparmor_parser -r /etc/apparmor.d/shadow   (redo it if the binary moves)\n" +
			"or allow them for everyone:\n" +
			"  sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\n" +
			"  (and to keep it: echo kernel.apparmor_restrict_unprivileged_userns=0 | sudo tee /etc/sysctl.d/60-shadow-userns.conf)"
	case v.Stage == "create namespaces" && readSysctl("/proc/sys/user/max_user_namespaces") == "0":
		return "user namespaces are disabled: sudo sysctl -w user.max_user_namespaces=15000"
	case v.Stage == "create namespaces" && readSysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		return "unprivileged user namespaces are disabled: sudo sysctl -w kernel.unprivileged_userns_clone=1"
	case v.Stage == "create namespaces":
		return "this environment (a container or seccomp policy) forbids new namespaces; run shadow where it may create them"
	case strings.HasPrefix(v.Stage, "mount overlay"):
		return "overlayfs refused " + base + " as upper dir or is missing (Linux >= 5.11 is needed for unprivileged overlay mounts). " +
			"Set XDG_STATE_HOME to a directory on ext4, xfs, btrfs or tmpfs, or load the overlay module (sudo modprobe overlay)"
	}
	return "report this with the output of `shadow probe --json`"
}
