package sandboxtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
)

// runHostile runs the routes a hostile command takes out of a
// hostile-proof sandbox. Each plants something the command must not reach
// or runs the attack, then checks the checkout and shadow's records.
func runHostile(t *testing.T, s *suite) {
	t.Run("StateDir", s.stateDir)
	t.Run("SiblingUpper", s.siblingUpper)
	t.Run("InheritedFDs", s.inheritedFDs)
	t.Run("ProcOneCwdAndRoot", s.procOne)
	t.Run("Umount", s.umount)
	t.Run("PeelMasksInNestedNamespace", s.peelMasks)
	t.Run("NoCapabilities", s.noCapabilities)
	t.Run("RootDevicesAndSysctls", s.rootDevices)
	t.Run("CallersTmux", s.callersTmux)
	t.Run("TIOCSTI", s.tiocsti)
	t.Run("GitWorktree", s.gitWorktree)
	runSeal(t, s)    // seal_linux.go: $HOME, /tmp and the system outside the workspace
	runEdges(t, s)   // edges_linux.go: terminals, late sockets, IPC and keys
	runNetwork(t, s) // network_linux.go: siblings', the host's and the user's servers
}

// checkClean fails if the checkout or the state dir changed.
func (f *fixture) checkClean(ws, state string) {
	f.t.Helper()
	if got := Snapshot(f.t, f.ws); got != ws {
		f.t.Errorf("the hostile command changed the checkout:\nbefore:\n%s\nafter:\n%s", ws, got)
	}
	if got := f.stateSnapshot(); got != state {
		f.t.Errorf("the hostile command changed shadow's state dir:\nbefore:\n%s\nafter:\n%s", state, got)
	}
	if entries, _ := os.ReadDir(f.dirs.Sandboxes); len(entries) != 0 {
		f.t.Errorf("left in the sandboxes dir: %v", names(entries))
	}
}

// stateSnapshot is Snapshot of the state dir without the sandboxes dir,
// where the sandbox itself makes and removes per-job dirs.
func (f *fixture) stateSnapshot() string {
	f.t.Helper()
	var b strings.Builder
	entries, _ := os.ReadDir(f.dirs.State)
	for _, e := range entries {
		if p := filepath.Join(f.dirs.State, e.Name()); p != f.dirs.Sandboxes {
			b.WriteString(e.Name() + ":\n" + Snapshot(f.t, p))
		}
	}
	return b.String()
}

// stateDir: plant a record and an in-place journal, then have the command
// read, rewrite and add to them.
func (s *suite) stateDir(t *testing.T) {
	f := s.setup(t)
	rec := filepath.Join(f.dirs.State, "workspaces", "w1", "runs", "r1", "hyps", "good")
	if err := os.MkdirAll(rec, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(rec, "files.json"), []byte(`{"secret":"RECORD-SECRET-4711"}`), 0o600)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	st := f.dirs.State
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "evil"}, `
		cat `+st+`/workspaces/*/runs/*/hyps/*/files.json
		echo '{"evil":1}' > `+rec+`/files.json && echo WROTE-RECORD
		mkdir -p `+st+`/workspaces/w1/inplace && echo '[{"path":"../../x"}]' > `+st+`/workspaces/w1/inplace/journal.json && echo WROTE-JOURNAL
		touch `+st+`/PWNED && echo WROTE-STATE
		ls -la `+st+`/ `+f.dirs.Sandboxes+`/
		true`)
	if strings.Contains(out, "RECORD-SECRET-4711") {
		t.Errorf("the command read a record in the state dir:\n%s", out)
	}
	f.checkClean(ws, state)
}

// siblingUpper: while a runs, b looks for a's upper dir (by glob under the
// sandboxes dir and in /proc/self/mountinfo) to read a's fix and plant a
// file a would see.
func (s *suite) siblingUpper(t *testing.T) {
	if !s.p.Parallel {
		t.Skip("the sandbox runs one job at a time: no sibling runs alongside")
	}
	f := s.setup(t)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	a := engine.Hypothesis{Name: "a", Files: []engine.File{file("fix.py", "SIBLING-SECRET-0815")}}
	var outA syncBuffer
	doneA := make(chan error, 1)
	go func() {
		_, err := f.sb.Run(context.Background(), f.job(a, `echo READY; sleep 2; test -e planted.txt && echo A-SEES-PLANTED; cat fix.py; echo; ls`, &outA))
		doneA <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(outA.String(), "READY") {
		if time.Now().After(deadline) {
			t.Fatalf("a never started: %s", outA.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	sb := f.dirs.Sandboxes
	_, outB := f.run(context.Background(), engine.Hypothesis{Name: "b"}, `
		for u in `+sb+`/*/upper `+sb+`/*/* $(sed -n 's/.*upperdir=\([^,]*\).*/\1/p' /proc/self/mountinfo); do
			echo "TRY $u"
			cat "$u/fix.py" 2>/dev/null
			echo planted > "$u/planted.txt" 2>/dev/null && echo "PLANTED $u"
		done
		true`)
	if err := <-doneA; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(outB, "SIBLING-SECRET-0815") {
		t.Errorf("b read a's file:\n%s", outB)
	}
	if got := outA.String(); strings.Contains(got, "A-SEES-PLANTED") || strings.Contains(got, "planted.txt") || !strings.Contains(got, "SIBLING-SECRET-0815") {
		t.Errorf("a's view changed by b:\n%s\nb:\n%s", got, outB)
	}
	f.checkClean(ws, state)
}

// inheritedFDs: shadow inherits a couple of hundred descriptors from its
// caller (a directory fd on the workspace, O_PATH handles, a socket,
// files opened for writing, the state dir); none may reach the command.
func (s *suite) inheritedFDs(t *testing.T) {
	f := s.setup(t)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	open := func(p string, flags int) {
		fd, err := unix.Open(p, flags, 0)
		if err != nil {
			t.Fatal(err)
		}
		fds = append(fds, fd)
	}
	for i := 0; i < 50; i++ {
		open(f.ws, unix.O_RDONLY|unix.O_DIRECTORY)
		open(f.ws, unix.O_PATH|unix.O_DIRECTORY)
		open(filepath.Join(f.ws, "calc.py"), unix.O_RDWR)
		open(f.dirs.State, unix.O_PATH)
	}
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	fds = append(fds, sp[0], sp[1])
	// As a caller leaves them: without close-on-exec.
	for _, fd := range fds {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
			t.Fatal(err)
		}
	}
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "fds"}, `
		n=3
		while [ $n -lt 1024 ]; do
			if [ -e /proc/$$/fd/$n ]; then
				echo "FD $n"
				echo pwned > /proc/$$/fd/$n/PWNED 2>/dev/null
				echo pwned >> /proc/$$/fd/$n 2>/dev/null
				touch /proc/$$/fd/$n/../PWNED-PARENT 2>/dev/null
			fi
			n=$((n+1))
		done
		true`)
	if strings.Contains(out, "FD ") {
		t.Errorf("descriptors above 2 reached the command:\n%s", out)
	}
	f.checkClean(ws, state)
}

// procOne: the init is PID 1; its cwd and root must not lead to the real
// checkout under the mount.
func (s *suite) procOne(t *testing.T) {
	f := s.setup(t)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	// shadow is usually started from the checkout: its cwd, and so the
	// init's, is the real directory the overlay covers.
	t.Chdir(f.ws)
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "p1"}, `
		for p in /proc/1 /proc/$PPID; do
			echo pwned > $p/cwd/PWNED 2>/dev/null && echo "WROTE $p/cwd"
			ls $p/cwd/ 2>/dev/null
			ls $p/fd/ 2>/dev/null
			echo pwned > $p/root`+f.ws+`/PWNED-ROOT 2>/dev/null
		done
		true`)
	_ = out
	f.checkClean(ws, state)
}

// umount: remove the overlay, directly and from a nested user namespace,
// and write what is below.
func (s *suite) umount(t *testing.T) {
	f := s.setup(t)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	script := `umount -l "$W" 2>&1; umount "$W" 2>&1; echo pwned > "$W/PWNED-UMOUNT"; ` +
		`umount -l "$S" 2>&1; ls "$S"; touch "$S/PWNED" 2>&1; `
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "um"},
		`export W='`+f.ws+`' S='`+f.dirs.State+`'; `+script+
			`if command -v unshare >/dev/null; then unshare -Urm sh -c '`+script+`' 2>&1; unshare -m sh -c '`+script+`' 2>&1; fi; true`)
	_ = out
	f.checkClean(ws, state)
}

// peelMasks: in a nested user and mount namespace the command has every
// capability over its own mounts; a non-recursive bind of a masked dir's
// parent (or of the workspace's parent) would show what lies under the
// masks and the overlay, and a remount could make /proc/sys writable. The
// kernel refuses both for mounts locked together (mount_namespaces(7)).
func (s *suite) peelMasks(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is missing")
	}
	f := s.setup(t)
	os.WriteFile(filepath.Join(f.dirs.State, "secret"), []byte("UNDER-THE-MASK-1312"), 0o600)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	inner := `d=$(mktemp -d); ` +
		`mount --bind "$P" "$d" 2>&1 && cat "$d/$(basename "$S")/secret"; ` +
		`mount --bind "$WP" "$d" 2>&1 && echo pwned > "$d/$(basename "$W")/PWNED-PEEL"; ` +
		`mount -o remount,bind,rw /proc/sys 2>&1 && echo REMOUNTED-RW; ` +
		`mount -o remount,rw "$S" 2>&1; umount "$S" 2>&1 && cat "$S/secret"; true`
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "peel"},
		`export W='`+f.ws+`' S='`+f.dirs.State+`' P='`+filepath.Dir(f.dirs.State)+`' WP='`+filepath.Dir(f.ws)+`'; `+
			`unshare -Urm sh -c '`+inner+`' 2>&1; unshare -Um sh -c '`+inner+`' 2>&1; unshare -Urmpf --mount-proc sh -c '`+inner+`' 2>&1; true`)
	t.Logf("the hostile command said:\n%s", out)
	if strings.Contains(out, "UNDER-THE-MASK-1312") || strings.Contains(out, "REMOUNTED-RW") {
		t.Errorf("a nested namespace peeled a mask off:\n%s", out)
	}
	f.checkClean(ws, state)
}

// noCapabilities: every set empty, the bounding set too, no_new_privs on.
func (s *suite) noCapabilities(t *testing.T) {
	f := s.setup(t)
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "caps"}, `grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status`)
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			got[k] = strings.TrimSpace(v)
		}
	}
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if got[k] != "0000000000000000" {
			t.Errorf("%s = %q, want none (uid %d)", k, got[k], os.Getuid())
		}
	}
	if got["NoNewPrivs"] != "1" {
		t.Errorf("NoNewPrivs = %q, want 1", got["NoNewPrivs"])
	}
}

// rootDevices: as root the workspace sits on a loop-mounted image; the
// command tries to write the loop device (at offset 0, which ext4 leaves
// unused) and a sysctl (writing back its own value).
func (s *suite) rootDevices(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("as a user the command cannot open root-owned devices or sysctls anyway: this route is root's")
	}
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is missing: cannot make a loop-mounted workspace", tool)
		}
	}
	f := s.setup(t)
	img := filepath.Join(t.TempDir(), "ws.img")
	mnt := t.TempDir()
	sh := func(args ...string) string {
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			t.Skipf("%v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	sh("truncate", "-s", "32M", img)
	sh("mkfs.ext4", "-q", "-F", img)
	dev := sh("losetup", "--find", "--show", img)
	defer exec.Command("losetup", "-d", dev).Run()
	sh("mount", dev, mnt)
	defer exec.Command("umount", "-l", mnt).Run()
	f.ws = mnt
	f.write("calc.py", "x\n", 0o644)
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "root"}, `
		printf PWNED | dd of=`+dev+` bs=5 count=1 conv=notrunc 2>&1 && echo WROTE-DEVICE
		mknod /tmp/shadow-evil-loop b $(stat -c '%t %T' `+dev+` | while read a b; do echo $((0x$a)) $((0x$b)); done) 2>&1 && printf PWNED | dd of=/tmp/shadow-evil-loop bs=5 count=1 conv=notrunc 2>&1 && echo WROTE-MKNOD
		rm -f /tmp/shadow-evil-loop
		cat /proc/sys/kernel/core_pattern > /tmp/shadow-core-$$ && cat /tmp/shadow-core-$$ > /proc/sys/kernel/core_pattern 2>&1 && echo WROTE-SYSCTL
		rm -f /tmp/shadow-core-$$
		mkdir /sys/fs/cgroup/shadow-evil-$$ 2>&1 && echo WROTE-SYSFS && rmdir /sys/fs/cgroup/shadow-evil-$$
		ls /dev
		true`)
	for _, bad := range []string{"WROTE-DEVICE", "WROTE-MKNOD", "WROTE-SYSCTL", "WROTE-SYSFS"} {
		if strings.Contains(out, bad) {
			t.Errorf("uid 0 without capabilities: %s\n%s", bad, out)
		}
	}
	b := make([]byte, 5)
	if fd, err := os.Open(dev); err == nil {
		fd.ReadAt(b, 0)
		fd.Close()
	}
	if string(b) == "PWNED" {
		t.Errorf("the loop device under the workspace was written:\n%s", out)
	}
	f.checkClean(ws, state)
}

// callersTmux: shadow runs inside tmux; the command asks the user's tmux
// server, which runs outside every namespace, to write the checkout.
func (s *suite) callersTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	f := s.setup(t)
	name := fmt.Sprintf("shadow-sbt-%d", os.Getpid())
	tmux := func(args ...string) *exec.Cmd {
		c := exec.Command("tmux", append([]string{"-L", name, "-f", "/dev/null"}, args...)...)
		c.Env = append(os.Environ(), "TMUX=")
		return c
	}
	if out, err := tmux("new-session", "-d", "-s", "s", "sleep 600").CombinedOutput(); err != nil {
		t.Skipf("cannot start a tmux server: %v: %s", err, out)
	}
	defer tmux("kill-server").Run()
	sock, err := tmux("display-message", "-p", "#{socket_path}").Output()
	if err != nil {
		t.Fatal(err)
	}
	socket := strings.TrimSpace(string(sock))
	f.env = append(os.Environ(), "TMUX="+socket+",1,0", "TMUX_PANE=%0")
	ws, state := Snapshot(t, f.ws), f.stateSnapshot()
	w := f.ws
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "tmux"}, `
		echo "TMUX=${TMUX-unset} TMUX_PANE=${TMUX_PANE-unset}"
		tmux run-shell "echo pwned > `+w+`/PWNED-1" 2>&1
		tmux -L `+name+` run-shell "echo pwned > `+w+`/PWNED-2" 2>&1
		tmux -S `+socket+` run-shell "echo pwned > `+w+`/PWNED-3" 2>&1
		true`)
	if !strings.Contains(out, "TMUX=unset TMUX_PANE=unset") {
		t.Errorf("the command inherited the caller's tmux variables:\n%s", out)
	}
	time.Sleep(200 * time.Millisecond) // a run-shell the server accepted may still be writing
	f.checkClean(ws, state)
}

// tiocsti: shadow runs on a terminal; the command pushes keystrokes into
// it (TIOCSTI), which the terminal's next reader (shadow's TUI, the shell)
// would take as typed. The job runs in a child of the test binary whose
// controlling terminal is a pty.
func (s *suite) tiocsti(t *testing.T) {
	const childEnv = "SHADOW_SANDBOXTEST_TTY_CHILD"
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl is missing: the hostile command needs it for ioctl(2)")
	}
	inject := `perl -e 'for my $p ("/dev/tty") { if (open(my $t, "+<", $p)) { my $ok = 1; for (split //, "echo PWNED\n") { $ok &&= ioctl($t, 0x5412, $_) } print "INJECTED via $p\n" if $ok } else { print "open $p: $!\n" } } for my $fd (0..2) { open(my $t, "+<&=", $fd) or next; print "INJECTED via fd $fd\n" if ioctl($t, 0x5412, "x") }'`
	if os.Getenv(childEnv) == "1" {
		f := s.setup(t)
		_, out := f.run(context.Background(), engine.Hypothesis{Name: "sti"}, inject)
		fmt.Printf("COMMAND SAID: %s\n", strings.ReplaceAll(out, "\n", " | "))
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			fmt.Printf("CHILD ERROR no controlling tty: %v\n", err)
			return
		}
		n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
		fmt.Printf("PENDING %d %v\n", n, err)
		return
	}
	master, slave, err := openPty()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	exe, _ := os.Executable()
	c := exec.Command(exe, "-test.run="+runPattern(t.Name()), "-test.v")
	c.Env = append(os.Environ(), childEnv+"=1")
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	c.SysProcAttr = &unix.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var got strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := master.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			break
		}
	}
	c.Wait()
	out := got.String()
	if !strings.Contains(out, "PENDING ") {
		t.Fatalf("the child on the pty did not report:\n%s", out)
	}
	if strings.Contains(out, "INJECTED") || !strings.Contains(out, "PENDING 0 ") {
		t.Errorf("the command pushed input into the caller's terminal:\n%s", out)
	}
}

// runPattern is a -test.run pattern matching exactly the test name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// openPty opens a new pseudo-terminal pair (pty(7)).
func openPty() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// gitWorktree: the workspace is a git worktree, whose refs, objects,
// stash and reflogs live in the main repository's .git, outside it. The
// command commits, stashes, tags and moves branches; the main repository
// must be byte-identical, while git works inside.
func (s *suite) gitWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := s.setup(t)
	root := t.TempDir()
	repo, wt := filepath.Join(root, "repo"), filepath.Join(root, "wt")
	gitEnv := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	git := func(dir string, args ...string) {
		c := exec.Command("git", args...)
		c.Dir, c.Env = dir, gitEnv
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	os.MkdirAll(repo, 0o755)
	git(repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "calc.py"), []byte("v1\n"), 0o644)
	git(repo, "add", ".")
	git(repo, "commit", "-q", "-m", "one")
	git(repo, "branch", "other")
	git(repo, "worktree", "add", "-q", "-b", "feature", wt)
	f.ws, f.env = wt, gitEnv
	ws, state, main := Snapshot(t, wt), f.stateSnapshot(), Snapshot(t, repo)
	_, out := f.run(context.Background(), engine.Hypothesis{Name: "git", Files: []engine.File{file("calc.py", "v2\n")}}, `
		git commit -q -am hostile && echo COMMITTED
		echo dirty > calc.py; git stash -q && echo STASHED
		git tag hostile-tag && echo TAGGED
		git branch -f other HEAD && echo MOVED-BRANCH
		git update-ref refs/heads/planted HEAD && echo PLANTED
		git reflog expire --expire=now --all; git gc -q --prune=now 2>&1
		git log --oneline other | head -3
		true`)
	for _, want := range []string{"COMMITTED", "STASHED", "TAGGED", "MOVED-BRANCH"} {
		if !strings.Contains(out, want) {
			t.Errorf("git in the hypothesis should work on its shadow (%s missing):\n%s", want, out)
		}
	}
	if got := Snapshot(t, repo); got != main {
		t.Errorf("git in a worktree hypothesis changed the main repository:\nbefore:\n%s\nafter:\n%s\ncommand:\n%s", main, got, out)
	}
	f.checkClean(ws, state)
}
