package copy

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/shadow-dev/shadow/internal/sandbox/copy/dockerseccomp"
	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
	"github.com/shadow-dev/shadow/internal/sandbox/sandboxtest"
)

// The sealed conformance routes where namespaces are really forbidden:
// this test binary re-runs TestSealedConformance inside the jail
// (bubblewrap --disable-userns) and under Docker's namespace rules
// (dockerseccomp), as root and as the unprivileged user, which is where
// copy mode runs in practice.

// sbtSeccompEnv makes the re-run test binary put itself under Docker's
// namespace rules first (see TestMain).
const sbtSeccompEnv = "SHADOW_SBT_SECCOMP"

// maybeSeccomp is called first in TestMain.
func maybeSeccomp() {
	if os.Getenv(sbtSeccompEnv) != "1" {
		return
	}
	os.Unsetenv(sbtSeccompEnv)
	runtime.LockOSThread()
	if err := dockerseccomp.Install(); err != nil {
		fmt.Fprintln(os.Stderr, "seccomp:", err)
		os.Exit(125)
	}
}

// TestSealedConformanceConfined: TestSealedConformance's routes all fail
// in the jail and under the seccomp rules, as root and as user shadowci.
func TestSealedConformanceConfined(t *testing.T) {
	if abi, why := landlock.Status(); abi == 0 {
		t.Skip("no Landlock here: " + why)
	}
	if os.Getenv(sbtSeccompEnv+"_CHILD") != "" {
		t.Skip("already confined")
	}
	var cred *syscall.Credential
	var username string
	if os.Geteuid() == 0 {
		u, err := user.Lookup("shadowci")
		if err != nil {
			t.Skip("as root, the user case runs as shadowci: useradd -m shadowci")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred, username = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, u.Username
	}
	// A copy of this binary the unprivileged user can run.
	dir, err := os.MkdirTemp("", "shadow-sbt-confined-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(dir, 0o755))
	exe, _ := os.Executable()
	bin := filepath.Join(dir, "copy.test")
	must(copyExe(exe, bin))
	for _, how := range []string{"jail", "seccomp"} {
		for _, asRoot := range []bool{false, true} {
			if asRoot && cred == nil {
				continue // not root: the user case is the caller
			}
			name := how + "/user"
			if asRoot {
				name = how + "/root"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				tmp := filepath.Join(dir, strings.ReplaceAll(name, "/", "-"))
				must(os.Mkdir(tmp, 0o700))
				env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "TMPDIR=" + tmp, sbtSeccompEnv + "_CHILD=1"}
				if how == "seccomp" {
					env = append(env, sbtSeccompEnv+"=1")
				}
				if !asRoot && cred != nil {
					must(os.Chown(tmp, int(cred.Uid), int(cred.Gid)))
				}
				// env(1) carries the environment through the jail's su.
				argv := append([]string{"env"}, env...)
				argv = append(argv, bin, "-test.run", "^TestSealedConformance$", "-test.count=1", "-test.v")
				c := exec.Command(argv[0], argv[1:]...)
				switch {
				case how == "jail":
					if _, err := exec.LookPath("bwrap"); err != nil || sandboxtest.JailTool() == "" {
						t.Skip("needs bubblewrap (apt-get install bubblewrap) (the jail is test/tools/jail; SHADOW_JAIL overrides it)")
					}
					jail := []string{sandboxtest.JailTool()}
					if !asRoot && cred != nil {
						jail = append(jail, "-u", username)
					}
					c = exec.Command(jail[0], append(append(jail[1:], "--"), argv...)...)
				case !asRoot:
					c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
				}
				c.Dir = tmp
				out, err := c.CombinedOutput()
				if err != nil || !strings.Contains(string(out), "--- PASS: TestSealedConformance") {
					t.Errorf("%v\n%s", err, out)
				}
			})
		}
	}
}

func copyExe(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
