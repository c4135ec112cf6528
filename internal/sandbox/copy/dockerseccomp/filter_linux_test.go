package dockerseccomp

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMain: as a child with FILTERED=1, install the filter and report
// what each call gets.
func TestMain(m *testing.M) {
	if os.Getenv("FILTERED") == "1" {
		runtime.LockOSThread()
		if err := Install(); err != nil {
			os.Stdout.WriteString("install: " + err.Error())
			os.Exit(1)
		}
		_, _, unshare := unix.Syscall(unix.SYS_UNSHARE, unix.CLONE_NEWUSER, 0, 0)
		_, _, clone3 := unix.Syscall(unix.SYS_CLONE3, 0, 0, 0)
		_, _, setns := unix.Syscall(unix.SYS_SETNS, 0, unix.CLONE_NEWNS, 0)
		// Go's fork: clone3 refused with ENOSYS, it falls back to clone.
		plain := exec.Command("/bin/true").Run()
		userns := exec.Command("/bin/true")
		userns.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
		nsErr := userns.Run()
		status, _ := os.ReadFile("/proc/self/status")
		seccomp := ""
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "Seccomp:") {
				seccomp = strings.TrimSpace(strings.TrimPrefix(l, "Seccomp:"))
			}
		}
		os.Stdout.WriteString(strings.Join([]string{unshare.Error(), clone3.Error(), setns.Error(), errString(plain), errString(nsErr), seccomp}, "|"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// TestDockerRules: the filter refuses exactly what Docker's default
// profile refuses, and a plain fork and exec still work.
func TestDockerRules(t *testing.T) {
	exe, _ := os.Executable()
	c := exec.Command(exe)
	c.Env = append(os.Environ(), "FILTERED=1")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := strings.Split(string(out), "|")
	want := []string{unix.EPERM.Error(), unix.ENOSYS.Error(), unix.EPERM.Error(), "ok", "", "2"}
	if len(got) != len(want) {
		t.Fatalf("got %q", out)
	}
	for i, w := range want {
		if w == "" {
			if !strings.Contains(got[i], "operation not permitted") {
				t.Errorf("clone(CLONE_NEWUSER): %q, want EPERM", got[i])
			}
			continue
		}
		if got[i] != w {
			t.Errorf("field %d: %q, want %q (all: %q)", i, got[i], w, out)
		}
	}
}
