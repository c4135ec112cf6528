package overlay

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/overlay/nsinit"
)

// CloseInheritedFDs, as main calls it first: descriptors a caller left
// open without close-on-exec (a directory, O_PATH, a socket) get the flag,
// so no later exec of any mode's command inherits them.
func TestCloseInheritedFDsMarksEveryDescriptor(t *testing.T) {
	dir := t.TempDir()
	var fds []int
	for i := 0; i < 200; i++ {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fds = append(fds, fd)
	}
	p, err := unix.Open(dir, unix.O_PATH, 0)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	fds = append(fds, p, sp[0], sp[1])
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, fd := range fds {
		unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0)
	}
	// A child started the way Go starts every command sees them before...
	count := func() string {
		out, err := exec.Command("sh", "-c", `n=0; for f in /proc/$$/fd/*; do n=$((n+1)); done; echo $n`).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	if got := count(); got == "4" || got == "3" {
		t.Fatalf("the inherited descriptors did not reach the child before the fix (%s): the test proves nothing", got)
	}
	CloseInheritedFDs()
	for _, fd := range fds {
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC == 0 {
			t.Fatalf("fd %d not close-on-exec: %v %v", fd, flags, err)
		}
	}
	// ...and none after: 0-2 plus the glob's own directory descriptor.
	if got := count(); got != "4" && got != "3" {
		t.Errorf("the child still holds %s descriptors", got)
	}
	// The walk, for kernels without close_range(CLOSE_RANGE_CLOEXEC).
	for _, fd := range fds {
		unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0)
	}
	nsinit.MarkCloexecByWalk()
	for _, fd := range fds {
		if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC == 0 {
			t.Fatalf("walk: fd %d not close-on-exec", fd)
		}
	}
}

// Outcome.Changed: what the command wrote, deleted or made, never the
// hypothesis's own files and deletions.
func TestOverlayChangedListsOnlyWhatTheCommandDid(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	os.MkdirAll(filepath.Join(ws, "tests"), 0o755)
	os.WriteFile(filepath.Join(ws, "tests/test_calc.py"), []byte("assert add(1,1)==2\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "tests/test_other.py"), []byte("x\n"), 0o644)
	hyp := engine.Hypothesis{Name: "c",
		Files:   []engine.File{{Path: "calc.py", Content: []byte("fixed\n"), Mode: 0o644}, {Path: "lib/new.py", Content: []byte("n\n"), Mode: 0o644}, {Path: "kept.py", Content: []byte("k\n"), Mode: 0o644}},
		Deletes: []string{"pkg"}}
	o, out, err := run(t, sb, context.Background(), ws, hyp, "sh", "-c",
		`echo "assert True" > tests/test_calc.py; rm tests/test_other.py; echo again > kept.py; mkdir -p build/out; touch build/out/o; mkdir emptydir; cat calc.py >/dev/null`)
	if err != nil || o.ExitCode != 0 {
		t.Fatal(err, o, out)
	}
	want := []string{"build", "build/out", "build/out/o", "emptydir", "kept.py", "tests/test_calc.py", "tests/test_other.py"}
	if !reflect.DeepEqual(o.Changed, want) {
		t.Errorf("Changed = %q, want %q", o.Changed, want)
	}
	o, _, _ = run(t, sb, context.Background(), ws, hyp, "true")
	if o.Changed == nil || len(o.Changed) != 0 {
		t.Errorf("a command that writes nothing: Changed = %#v, want empty", o.Changed)
	}
}

// Masks hold under --tmp private too, and a mask that would hide the
// workspace is refused with advice instead of hiding it.
func TestOverlayMasksWithPrivateTmpAndRefusesCoveringWorkspace(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	secretDir := t.TempDir()
	os.WriteFile(filepath.Join(secretDir, "rec"), []byte("MASKED-SECRET"), 0o600)
	sb.Mask(secretDir)
	for _, tmp := range []string{"shared", "private"} {
		var out bytes.Buffer
		o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: engine.Hypothesis{Name: "m"}, Output: &out, Env: os.Environ(), Tmp: tmp,
			Command: []string{"sh", "-c", "cat " + secretDir + "/rec; ls " + sb.base + "; cat calc.py"}})
		if err != nil || o.ExitCode != 0 || !strings.Contains(out.String(), "a - b") {
			t.Fatalf("%s: %v %+v %s", tmp, err, o, out.String())
		}
		if strings.Contains(out.String(), "MASKED-SECRET") || strings.Contains(out.String(), "hyp-") {
			t.Errorf("--tmp %s: the command saw a masked directory:\n%s", tmp, out.String())
		}
	}
	var out bytes.Buffer
	_, err := New(sb.base, sb.options).Mask(filepath.Dir(ws)).Run(context.Background(), engine.Job{Workspace: ws, Hyp: engine.Hypothesis{Name: "m"}, Output: &out, Env: os.Environ(), Command: []string{"true"}})
	if err == nil || !strings.Contains(err.Error(), "contains "+ws) {
		t.Errorf("a mask covering the workspace: err = %v", err)
	}
}

// sccache: a server the user started outside would compile the real
// checkout's files at the same paths. Each hypothesis's client must start
// its own server inside the sandbox, and compile the hypothesis's source.
func TestOverlaySccacheGetsAPrivateServer(t *testing.T) {
	sb := needOverlay(t)
	for _, tool := range []string{"sccache", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.c"), []byte("int main(void){return 3;}\n"), 0o644)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "SCCACHE_SERVER_PORT="+strconv.Itoa(port), "SCCACHE_DIR="+t.TempDir(), "CC=sccache gcc", "SCCACHE_LOG=", "SCCACHE_IDLE_TIMEOUT=30")
	start := exec.Command("sccache", "--start-server")
	start.Env = env
	if out, err := start.CombinedOutput(); err != nil {
		t.Skipf("cannot start an outside sccache server: %v: %s", err, out)
	}
	defer func() {
		stop := exec.Command("sccache", "--stop-server")
		stop.Env = env
		stop.Run()
	}()
	hyp := engine.Hypothesis{Name: "s", Files: []engine.File{{Path: "main.c", Content: []byte("int main(void){return 0;}\n"), Mode: 0o644}}}
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: hyp, Output: &out, Env: env,
		Command: []string{"sh", "-c", `echo "port=$SCCACHE_SERVER_PORT"; $CC -c main.c -o main.o && gcc main.o -o main && ./main; echo "exit=$?"`}})
	if err != nil {
		t.Fatal(err, out.String())
	}
	got := out.String()
	if strings.Contains(got, "port="+strconv.Itoa(port)+"\n") {
		t.Errorf("the command talks to the outside sccache server:\n%s", got)
	}
	if !strings.Contains(got, "exit=0") || o.ExitCode != 0 {
		t.Errorf("compiled something other than the hypothesis's main.c:\n%s", got)
	}
	// Named only by a config file (cargo's build.rustc-wrapper): sccache
	// on PATH is enough to get a private port.
	out.Reset()
	plain := append(os.Environ(), "SCCACHE_SERVER_PORT="+strconv.Itoa(port))
	if _, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: hyp, Output: &out, Env: plain,
		Command: []string{"sh", "-c", `echo "port=$SCCACHE_SERVER_PORT"`}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "port="+strconv.Itoa(port)+"\n") {
		t.Errorf("with sccache on PATH and no wrapper variable, the command still talks to the outside server:\n%s", out.String())
	}
}

// A collected file (a JUnit report) is made by the command and read by
// shadow outside the namespace: a symlink to a secret, a symlinked
// directory and a FIFO must give nothing, and never hang.
func TestOverlayCollectRefusesSymlinksAndFifos(t *testing.T) {
	sb := needOverlay(t)
	ws := workspace(t)
	secret := filepath.Join(t.TempDir(), "id_rsa")
	os.WriteFile(secret, []byte("PRIVATE-KEY"), 0o600)
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Hyp: engine.Hypothesis{Name: "j"}, Output: &out, Env: os.Environ(),
		Command: []string{"sh", "-c", "ln -s " + secret + " report.xml; ln -s " + filepath.Dir(secret) + " reports; mkfifo fifo.xml; echo ok > good.xml"},
		Collect: []string{"report.xml", "reports/id_rsa", "fifo.xml", "good.xml"}})
	if err != nil || o.ExitCode != 0 {
		t.Fatal(err, o, out.String())
	}
	for _, p := range []string{"report.xml", "reports/id_rsa", "fifo.xml"} {
		if b, ok := o.Collected[p]; ok {
			t.Errorf("collected %s: %q", p, b)
		}
	}
	if string(o.Collected["good.xml"]) != "ok\n" {
		t.Errorf("a regular report was not collected: %q", o.Collected["good.xml"])
	}
	if _, err := openNoSymlinks(ws, "pkg/old.txt"); err != nil {
		t.Errorf("fallback open of a plain path: %v", err)
	}
	if fd, err := openNoSymlinks(filepath.Dir(secret), "../"+filepath.Base(filepath.Dir(secret))+"/id_rsa"); err == nil {
		unix.Close(fd)
		t.Errorf("fallback open followed ..")
	}
}
