package overlay

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// blocker names the layer that keeps shadow from creating namespaces or
// mounting overlayfs, and the fix for that layer; for a failure it cannot
// place it returns the probe's own advice. Each branch reads the real
// state (sysctls, /proc/self/status, the kernel), not a guess from the
// errno alone: the same EPERM comes from seccomp, AppArmor or a missing
// capability.
func blocker(v Verdict, advice string) (layer, fix string) {
	sysctl := func(p string) string {
		b, _ := os.ReadFile(p)
		return strings.TrimSpace(string(b))
	}
	status := procStatus()
	createNS := v.Stage == "create namespaces"
	denied := v.Errno == "EPERM" || v.Errno == "EACCES"
	switch {
	case createNS && sysctl("/proc/sys/user/max_user_namespaces") == "0":
		return "sysctl", "user namespaces are disabled (user.max_user_namespaces=0): sudo sysctl -w user.max_user_namespaces=15000"
	case createNS && v.Errno == "ENOSPC":
		// The limit is per user namespace: bubblewrap --disable-userns
		// and some container runtimes set it to 0 inside theirs, where
		// the host's sysctl cannot be seen.
		return "user namespace limit", "this sandbox forbids nested user namespaces (its user.max_user_namespaces is 0, as under bubblewrap --disable-userns or a runtime that sets it); run shadow outside it, or let the runtime allow nested user namespaces"
	case v.UserNS && denied && sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
		return "apparmor", advice
	case createNS && denied && status["Seccomp"] == "2":
		return "seccomp", "a seccomp filter forbids new namespaces (Seccomp: 2 in /proc/self/status, e.g. a container's default profile). " +
			"Docker/Podman: run with --security-opt seccomp=unconfined, or a profile that allows unshare and clone with CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID. " +
			"Kubernetes: securityContext.seccompProfile (type: Unconfined or a Localhost profile allowing those), or a user-namespaced pod (hostUsers: false)"
	case createNS && denied && os.Geteuid() == 0 && !hasCap(status["CapEff"], unix.CAP_SYS_ADMIN):
		return "capabilities", "shadow runs as root without CAP_SYS_ADMIN (a container's default), so it may neither mount nor create namespaces: docker run --cap-add SYS_ADMIN (with a seccomp profile allowing unshare), or run as a non-root user where user namespaces are allowed"
	case createNS && sysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		return "sysctl", "unprivileged user namespaces are disabled: sudo sysctl -w kernel.unprivileged_userns_clone=1"
	case strings.HasPrefix(v.Stage, "mount overlay") && !hasOverlayFS():
		return "kernel", "this kernel has no overlayfs: sudo modprobe overlay (CONFIG_OVERLAY_FS)"
	case strings.HasPrefix(v.Stage, "mount overlay") && v.UserNS && !kernelAtLeast(5, 11):
		return "kernel", "unprivileged overlayfs mounts need Linux 5.11 or later (this is " + kernelRelease() + ")"
	}
	return "", advice
}

// procStatus is /proc/self/status as key -> value.
func procStatus() map[string]string {
	m := map[string]string{}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return m
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

func hasCap(hexSet string, c int) bool {
	set, err := strconv.ParseUint(hexSet, 16, 64)
	return err == nil && set&(1<<uint(c)) != 0
}

func hasOverlayFS() bool {
	b, err := os.ReadFile("/proc/filesystems")
	if err != nil {
		return true // cannot tell: do not blame the kernel
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(strings.TrimPrefix(l, "nodev")) == "overlay" {
			return true
		}
	}
	// A module not yet loaded is not listed; it loads on the first mount.
	_, err = os.Stat("/sys/module/overlay")
	return err == nil
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

func kernelAtLeast(major, minor int) bool {
	parts := strings.SplitN(kernelRelease(), ".", 3)
	if len(parts) < 2 {
		return true
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return ma > major || ma == major && mi >= minor
}
