package landlock

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// run starts argv sealed by p (ForkExecSealed) and returns its exit
// status, or -1 when it did not start.
func run(t *testing.T, p Policy, argv ...string) int {
	t.Helper()
	pid, _, err := ForkExecSealed(p, argv[0], argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		return -1
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	return ws.ExitStatus()
}

// TestForkExecSealed: a sealed command writes beneath Write only, renames
// across Write directories (the refer right), writes /dev/null, and
// cannot signal its parent (ABI 6).
func TestForkExecSealed(t *testing.T) {
	abi, why := Status()
	if abi == 0 {
		t.Skip("no Landlock here: " + why)
	}
	top := t.TempDir()
	in, in2, out := filepath.Join(top, "in"), filepath.Join(top, "in2"), filepath.Join(top, "out")
	for _, d := range []string{in, in2, out} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{Write: []string{in, in2}, Devices: DefaultDevices}
	if code := run(t, p, "/bin/sh", "-c", "echo a > "+in+"/a && mv "+in+"/a "+in2+"/a && echo x > /dev/null"); code != 0 {
		t.Fatalf("writes beneath Write: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(in2, "a")); err != nil {
		t.Fatal(err)
	}
	if code := run(t, p, "/bin/sh", "-c", "echo b > "+out+"/b"); code == 0 {
		t.Error("wrote outside Write")
	}
	if _, err := os.Stat(filepath.Join(out, "b")); err == nil {
		t.Error("a file appeared outside Write")
	}
	if abi >= 6 {
		if code := run(t, p, "/bin/sh", "-c", "kill -0 "+itoa(os.Getpid())); code != 1 {
			t.Error("signalled a process outside its domain")
		}
	}
}

// TestRequiredSealRefusesWithoutLandlock: a required seal that cannot be
// applied (a missing Write path) starts nothing.
func TestRequiredSealRefuses(t *testing.T) {
	if abi, why := Status(); abi == 0 {
		t.Skip("no Landlock here: " + why)
	}
	mark := filepath.Join(t.TempDir(), "ran")
	p := Policy{Write: []string{"/nonexistent/shadow-landlock-test"}, Required: true}
	if code := run(t, p, "/bin/sh", "-c", "touch "+mark); code != -1 {
		t.Errorf("exit %d, want not started", code)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the command ran")
	}
}

func TestScratchEnv(t *testing.T) {
	d := t.TempDir()
	env, err := ScratchEnv([]string{"TMPDIR=/tmp", "TEMP=/x", "GOFLAGS=-v", "HOME=/h"}, filepath.Join(d, "tmp"), filepath.Join(d, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(env, "\n")
	for _, want := range []string{"TMPDIR=" + d + "/tmp", "TEMP=" + d + "/tmp", "GOCACHE=" + d + "/cache/go-build",
		"XDG_CACHE_HOME=" + d + "/cache/xdg", "npm_config_cache=" + d + "/cache/npm", "GOFLAGS=-v -count=1", "HOME=/h"} {
		if !strings.Contains(got, want) {
			t.Errorf("env lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TMP=") && !strings.Contains(got, "TMPDIR=") {
		t.Error("TMP set where it was not")
	}
}

func itoa(n int) string {
	b := []byte{}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
