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
	"time"
)

// Verdict is what the probe found: which mode this machine gives and why.
type Verdict struct {
	Mode    string   `json:"mode"`              // "overlay" or "inplace"
	Reason  string   `json:"reason"`            // one line a user can read
	Stage   string   `json:"stage,omitempty"`   // the step that failed
	Errno   string   `json:"errno,omitempty"`   // its errno, e.g. EPERM
	Fix     string   `json:"fix,omitempty"`     // what to do about it
	Options []string `json:"options,omitempty"` // overlay options that mounted
	Proc    bool     `json:"fresh_proc"`        // a fresh /proc could be mounted
	UserNS  bool     `json:"user_namespace"`    // a user namespace is used (not root)
	Upper   string   `json:"upper_dir"`         // where upper dirs are made
	BootID  string   `json:"boot_id,omitempty"`
	Version string   `json:"version,omitempty"`
	Cached  bool     `json:"cached"`
}

// forceFailEnv makes the probe report user namespaces as blocked, so the
// fallback can be exercised on a machine that has them (tests, demos).
const forceFailEnv = "SHADOW_TEST_NO_USERNS"

// Probe tries the real thing: a user-namespace overlay mount of a scratch
// directory whose upper dir lives in base, where real runs put theirs.
func Probe(base string) Verdict {
	v := Verdict{UserNS: os.Geteuid() != 0, Upper: base}
	if os.Getenv(forceFailEnv) == "1" {
		v.Mode, v.Stage, v.Errno = "inplace", "create namespaces", "EPERM"
		v.Reason = "user namespaces disabled by " + forceFailEnv + "=1"
		return v
	}
	fail := func(stage string, err error) Verdict {
		v.Mode, v.Stage = "inplace", stage
		var ie *InitError
		if errors.As(err, &ie) {
			v.Stage, v.Errno = ie.Stage, ie.Errno
		} else {
			v.Errno = errnoName(err)
		}
		v.Reason = fmt.Sprintf("%s failed: %v", v.Stage, err)
		v.Fix = advice(v, base)
		return v
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return fail("create "+base, err)
	}
	dir, err := os.MkdirTemp(base, "probe-")
	if err != nil {
		return fail("create scratch dir in "+base, err)
	}
	defer RemoveTree(dir)
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
	v.Mode, v.Options, v.Proc = "overlay", []string{st.Options}, st.Proc
	v.Reason = "overlayfs mounts in a new mount namespace"
	if v.UserNS {
		v.Reason += " inside an unprivileged user namespace"
	}
	if st.Options != "" {
		v.Reason += " (options " + st.Options + ")"
	}
	return v
}

// CachedProbe returns the verdict cached for this boot and binary version,
// probing when there is none. A verdict is only valid for the boot it was
// made in: sysctls and modules change across reboots.
func CachedProbe(base, cacheFile, version string) Verdict {
	boot := bootID()
	if os.Getenv(forceFailEnv) != "1" {
		if b, err := os.ReadFile(cacheFile); err == nil {
			var v Verdict
			if json.Unmarshal(b, &v) == nil && v.BootID == boot && boot != "" && v.Version == version && v.Upper == base {
				v.Cached = true
				return v
			}
		}
	}
	v := Probe(base)
	v.BootID, v.Version = boot, version
	if os.Getenv(forceFailEnv) != "1" {
		if b, err := json.MarshalIndent(v, "", "  "); err == nil {
			_ = os.MkdirAll(filepath.Dir(cacheFile), 0o700)
			tmp := cacheFile + ".tmp" + fmt.Sprint(os.Getpid())
			if os.WriteFile(tmp, b, 0o600) == nil {
				_ = os.Rename(tmp, cacheFile)
			}
		}
	}
	return v
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// advice says what to do about a failed probe.
func advice(v Verdict, base string) string {
	readSysctl := func(p string) string {
		b, _ := os.ReadFile(p)
		return strings.TrimSpace(string(b))
	}
	switch {
	case v.Stage == "create namespaces" && readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
		exe, _ := os.Executable()
		return "AppArmor forbids unprivileged user namespaces (Ubuntu 24.04 default). Either allow them for everyone:\n" +
			"  sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\n" +
			"or allow only shadow with an AppArmor profile, /etc/apparmor.d/shadow:\n" +
			"  abi <abi/4.0>,\n  include <tunables/global>\n" +
			"  profile shadow " + exe + " flags=(unconfined) {\n    userns,\n    include if exists <local/shadow>\n  }\n" +
			"then: sudo apparmor_parser -r /etc/apparmor.d/shadow"
	case v.Stage == "create namespaces" && readSysctl("/proc/sys/user/max_user_namespaces") == "0":
		return "user namespaces are disabled: sudo sysctl -w user.max_user_namespaces=15000"
	case v.Stage == "create namespaces" && readSysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		return "unprivileged user namespaces are disabled: sudo sysctl -w kernel.unprivileged_userns_clone=1"
	case v.Stage == "create namespaces":
		return "this environment (a container or seccomp policy) forbids new namespaces; run shadow where it may create them, or use --mode inplace"
	case strings.HasPrefix(v.Stage, "mount overlay"):
		return "overlayfs refused " + base + " as upper dir or is missing (Linux >= 5.11 is needed for unprivileged overlay mounts). " +
			"Set XDG_STATE_HOME to a directory on ext4, xfs, btrfs or tmpfs, or load the overlay module (sudo modprobe overlay)"
	}
	return "use --mode inplace, or report this with the output of `shadow probe --json`"
}
