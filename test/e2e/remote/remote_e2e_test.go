//go:build linux

package remote

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/internal/mcpserver"
	"github.com/shadow-dev/shadow/test/e2e"
)

// The remote tests simulate machines: each node is an sshd running in its
// own mount namespace, with a fresh tmpfs over the directory that holds
// the test checkout and over the node user's state and cache dirs, so the
// checkout's path exists but is empty there, no shadow is installed there,
// and each node has its own state. Only root can make such namespaces
// and run sshd.

type sshNode struct {
	name string
	port int
	cmd  *exec.Cmd
}

type remoteEnv struct {
	*e2e.Env
	user, home, uid           string // the node user (root unless a test asks for another)
	base, co, keys, sshConfig string
	nodes                     map[string]*sshNode
}

func newRemoteEnv(t *testing.T, names ...string) *remoteEnv {
	t.Helper()
	return newRemoteEnvWith(t, nil, names...)
}

// newRemoteEnvWith starts the nodes with extra sshd_config lines each.
func newRemoteEnvWith(t *testing.T, sshdExtra map[string]string, names ...string) *remoteEnv {
	t.Helper()
	return newRemoteEnvAs(t, "root", sshdExtra, names...)
}

// newRemoteEnvAs logs in to the nodes as user.
func newRemoteEnvAs(t *testing.T, user string, sshdExtra map[string]string, names ...string) *remoteEnv {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("simulating remote nodes needs root: an sshd per node, each in its own mount namespace")
	}
	for _, tool := range []string{"/usr/sbin/sshd", "rsync", "ssh", "ssh-keygen", "unshare", "nsenter", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install openssh-server rsync)", tool)
		}
	}
	base := t.TempDir()
	r := &remoteEnv{base: base, co: filepath.Join(base, "co"), keys: filepath.Join(base, "keys"), nodes: map[string]*sshNode{}}
	r.Env = &e2e.Env{T: t, WS: filepath.Join(r.co, "ws"), State: t.TempDir(), Dir: t.TempDir()}
	r.user, r.home, r.uid = user, "/root", "0"
	if user != "root" {
		u, err := exec.Command("sh", "-c", `getent passwd "$1" | cut -d: -f3,6`, "sh", user).Output()
		f := strings.Split(strings.TrimSpace(string(u)), ":")
		if err != nil || len(f) != 2 {
			t.Skipf("no user %s here (useradd -m %s)", user, user)
		}
		r.uid, r.home = f[0], f[1]
	}
	for _, d := range []string{r.WS, r.keys, "/run/sshd", r.home + "/.cache", r.home + "/.local/state"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"host", "id"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(r.keys, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, _ := os.ReadFile(filepath.Join(r.keys, "id.pub"))
	os.WriteFile(filepath.Join(r.keys, "authorized_keys"), pub, 0o600)
	var cfg strings.Builder
	for _, name := range names {
		n := &sshNode{name: name, port: freePort(t)}
		r.nodes[name] = n
		fmt.Fprintf(&cfg, "Host %s\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n",
			name, n.port, user, filepath.Join(r.keys, "id"))
		r.startNode(n, sshdExtra[name])
	}
	// A Host nobody listens on: an unreachable node.
	fmt.Fprintf(&cfg, "Host down\n  HostName 127.0.0.1\n  Port %d\n  User root\n  IdentityFile %s\n  ConnectTimeout 5\n", freePort(t), filepath.Join(r.keys, "id"))
	r.sshConfig = filepath.Join(r.keys, "config")
	os.WriteFile(r.sshConfig, []byte(cfg.String()), 0o600)
	return r
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (r *remoteEnv) startNode(n *sshNode, extra string) {
	t := r.T
	conf := filepath.Join(r.keys, n.name+".sshd_config")
	// extra comes first: in sshd_config the first value given wins.
	os.WriteFile(conf, []byte(fmt.Sprintf(`%s
Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile none
UsePAM no
StrictModes no
PermitRootLogin yes
AuthorizedKeysFile %s
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxSessions 50
MaxStartups 50
LogLevel ERROR
`, extra, n.port, filepath.Join(r.keys, "host"), filepath.Join(r.keys, "authorized_keys"))), 0o600)
	// The node user's own dirs are theirs on the node: tmpfs owned by them.
	script := `set -e; mount -t tmpfs tmpfs "$1"; for d in "$3/.cache" "$3/.local/state"; do mount -t tmpfs -o "uid=$4,mode=0700" tmpfs "$d"; done; exec /usr/sbin/sshd -D -e -f "$2"`
	n.cmd = exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", r.co, conf, r.home, r.uid)
	// A test binary killed mid-test (a timeout, a ^C) must not leave the
	// listener behind: the death signal survives unshare's and sh's execs
	// (prctl(2): cleared only for set-id binaries).
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// sshd's own log, shown only when the test fails (the readiness
	// probe's bare connections are logged too).
	logf, err := os.Create(filepath.Join(r.keys, n.name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	n.cmd.Stderr = logf
	t.Cleanup(func() {
		logf.Close()
		if b, _ := os.ReadFile(logf.Name()); t.Failed() && len(b) > 0 {
			t.Logf("sshd log of %s:\n%s", n.name, b)
		}
	})
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.killNode(n.name) })
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(n.port))
		if err == nil {
			c.Close()
			return
		}
		if i > 200 {
			t.Fatalf("sshd for %s never listened: %v", n.name, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// onNode runs a shell script in the node's mount namespace (its view of
// the files), as the node would.
func (r *remoteEnv) onNode(name, script string) (string, error) {
	out, err := exec.Command("nsenter", "-t", strconv.Itoa(r.nodes[name].cmd.Process.Pid), "-m", "sh", "-c", script).CombinedOutput()
	return string(out), err
}

// nodeProcs lists the processes the node's sshd started (its sessions and
// everything under them), by walking parent links.
func (r *remoteEnv) nodeProcs(name string) []string {
	root := r.nodes[name].cmd.Process.Pid
	parent := map[int]int{}
	cmdline := map[int]string{}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		ppid, _ := strconv.Atoi(f[1])
		c, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		if f[0] == "Z" || len(c) == 0 {
			continue // exited, not yet reaped: nothing runs
		}
		parent[pid] = ppid
		cmdline[pid] = string(bytes.ReplaceAll(c, []byte{0}, []byte{' '}))
	}
	var out []string
	for pid := range parent {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == root {
				out = append(out, fmt.Sprintf("%d %s", pid, cmdline[pid]))
				break
			}
		}
	}
	return out
}

// waitNodeIdle waits until nothing the node's sshd started is left.
func (r *remoteEnv) waitNodeIdle(name string) {
	r.T.Helper()
	for i := 0; i < 200; i++ {
		if len(r.nodeProcs(name)) == 0 {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	r.T.Fatalf("left running on node %s: %q", name, r.nodeProcs(name))
}

// killNode is the machine dying: sshd and everything under it, at once.
func (r *remoteEnv) killNode(name string) {
	n := r.nodes[name]
	if n.cmd.ProcessState != nil {
		return
	}
	for _, p := range r.nodeProcs(name) {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		syscall.Kill(pid, syscall.SIGKILL)
	}
	n.cmd.Process.Kill()
	n.cmd.Wait()
}

func (r *remoteEnv) shadowRemote(args ...string) (string, string, int) {
	r.T.Helper()
	c := r.Cmd(args...)
	c.Env = append(c.Env, "SHADOW_SSH_COMMAND=ssh -F "+r.sshConfig)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.T.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (r *remoteEnv) git(args ...string) {
	r.T.Helper()
	c := exec.Command("git", append([]string{"-C", r.WS, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := c.CombinedOutput(); err != nil {
		r.T.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// remoteWorkspace is a git checkout: v.txt decides the test, delay holds
// how long the command sleeps, build/ is ignored.
func (r *remoteEnv) remoteWorkspace() {
	r.Write("v.txt", "bad\n", 0o644)
	r.Write("delay", "0\n", 0o644)
	r.Write("old.txt", "tracked, deleted locally later\n", 0o644)
	r.Write("note.txt", "committed\n", 0o644)
	r.Write(".gitignore", "build/\n", 0o644)
	r.Write("build/local.bin", "local build output\n", 0o644)
	r.git("init", "-q")
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "init")
	r.Write("note.txt", "uncommitted edit\n", 0o644)
	r.Write("extra.txt", "untracked, not ignored\n", 0o644)
}

// delayCheck sleeps as long as the hypothesis's delay file says, then
// passes when v.txt is good.
const delayCheck = `sleep "$(cat delay)"; ` + e2e.CheckScript

func hypWith(name, delay, v string) map[string]any {
	edits := []any{map[string]any{"path": "delay", "content": delay + "\n"}}
	if v != "" {
		edits = append(edits, map[string]any{"path": "v.txt", "content": v + "\n"})
	}
	return map[string]any{"name": name, "edits": edits}
}

func TestE2ERemoteTwoNodesNextFreeSlotMirrorAndApply(t *testing.T) {
	r := newRemoteEnv(t, "n1", "n2")
	r.remoteWorkspace()
	for _, n := range []string{"n1", "n2"} {
		if out, err := r.onNode(n, "ls -A "+r.co+"; ls "+r.home+"/.cache/shadow 2>/dev/null; true"); err != nil || strings.TrimSpace(out) != "" {
			t.Fatalf("node %s is not empty before the run: %q %v", n, out, err)
		}
	}
	before := e2e.Tree(t, r.WS)
	// One slot per node and uneven durations: "slow" holds one node, so
	// the three fast ones must all go to the other (round-robin would
	// send f2 to the busy node).
	spec := r.Spec(map[string]any{
		"hypotheses": []any{hypWith("slow", "3", ""), hypWith("f1", "0.3", ""), hypWith("f2", "0.3", "good"), hypWith("f3", "0.3", "")},
		"remote":     []any{map[string]any{"node": "n1", "jobs": 1}, map[string]any{"node": "n2", "jobs": 1}},
	})
	cmd := []string{"sh", "-c", `grep -q "uncommitted edit" note.txt && test ! -e build/local.bin && ` + delayCheck}
	out, stderr, code := r.shadowRemote(append([]string{"--headless", "--json", "-C", r.WS, spec, "--"}, cmd...)...)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, stderr, out)
	}
	if strings.Contains(stderr, "waiting for the mirror lock") {
		t.Errorf("a run alone on its nodes said it waited for their mirror lock:\n%s", stderr)
	}
	rep := r.Report(out)
	res := e2e.ByName(rep)
	if rep.Winner == nil || *rep.Winner != "f2" || rep.Mode != "remote" {
		t.Fatalf("winner %v mode %s\n%s", rep.Winner, rep.Mode, out)
	}
	slow := res["slow"].Node
	for _, h := range rep.Hypotheses {
		if h.Node != "n1" && h.Node != "n2" || h.Mode != "overlay" {
			t.Errorf("%s ran on node %q in mode %q", h.Name, h.Node, h.Mode)
		}
		if h.Name != "slow" && h.Node == slow {
			t.Errorf("%s went to %s, busy with the slow one: not the next free slot", h.Name, slow)
		}
	}
	if res["f2"].Status != "passed" || res["f1"].Status != "failed" || res["slow"].Status != "failed" {
		t.Errorf("statuses: slow %s f1 %s f2 %s", res["slow"].Status, res["f1"].Status, res["f2"].Status)
	}
	if len(rep.Sync) != 2 || rep.Sync[0].Bytes <= 0 || rep.Sync[1].Bytes <= 0 {
		t.Errorf("sync = %+v", rep.Sync)
	}
	if after := e2e.Tree(t, r.WS); after != before {
		t.Errorf("local checkout changed:\n%s\n---\n%s", before, after)
	}
	for _, n := range []string{"n1", "n2"} {
		r.waitNodeIdle(n)
		got, err := r.onNode(n, "cd "+r.WS+" && cat v.txt note.txt extra.txt && git rev-parse --is-inside-work-tree && test ! -e build/local.bin && ls "+r.home+"/.cache/shadow/bin")
		if err != nil || !strings.Contains(got, "bad\nuncommitted edit\nuntracked, not ignored\ntrue\n") {
			t.Errorf("mirror on %s: %v\n%s", n, err, got)
		}
	}

	// Second run: what was deleted locally is deleted in the mirror, the
	// node's own ignored files stay, only changes travel, and --apply
	// writes the winner here.
	if _, err := r.onNode("n1", "mkdir -p "+r.WS+"/build && echo warm > "+r.WS+"/build/cache"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(r.WS, "old.txt"))   // tracked, still in the index
	os.Remove(filepath.Join(r.WS, "extra.txt")) // untracked: only the manifest knows
	spec2 := r.Spec(map[string]any{"hypotheses": []any{hypWith("fix", "0", "good"), hypWith("nop", "0", "")}})
	out, stderr, code = r.shadowRemote(append([]string{"--headless", "--json", "--apply", "--remote", "n1", "-C", r.WS, spec2, "--"}, cmd...)...)
	if code != 0 {
		t.Fatalf("second run: exit %d\nstderr: %s\n%s", code, stderr, out)
	}
	rep2 := r.Report(out)
	if rep2.Winner == nil || *rep2.Winner != "fix" || len(rep2.Applied) != 2 {
		t.Fatalf("second run: winner %v applied %v", rep2.Winner, rep2.Applied)
	}
	if b, _ := os.ReadFile(filepath.Join(r.WS, "v.txt")); string(b) != "good\n" {
		t.Errorf("--apply did not write the winner locally: v.txt = %q", b)
	}
	if len(rep2.Sync) != 1 || rep2.Sync[0].Bytes >= rep.Sync[0].Bytes {
		t.Errorf("second sync sent %+v, the first %+v: not only the changes", rep2.Sync, rep.Sync)
	}
	got, _ := r.onNode("n1", "cd "+r.WS+" && ls -A . build")
	if strings.Contains(got, "old.txt") || strings.Contains(got, "extra.txt") || !strings.Contains(got, "cache") || !strings.Contains(got, "note.txt") {
		t.Errorf("mirror after the second sync:\n%s", got)
	}
	r.waitNodeIdle("n1")
}

func TestE2ERemoteTimeoutLeavesNothingOnTheNode(t *testing.T) {
	r := newRemoteEnv(t, "n1")
	r.Write("v.txt", "bad\n", 0o644)
	marker := "4321." + strconv.Itoa(os.Getpid())
	spec := r.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "hang"}}})
	start := time.Now()
	out, stderr, code := r.shadowRemote("--headless", "--json", "--remote", "n1", "--timeout", "1s", "-C", r.WS, spec, "--",
		"sh", "-c", "sleep "+marker+" & sleep "+marker)
	if code != 1 {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, stderr, out)
	}
	if h := r.Report(out).Hypotheses[0]; h.Status != engine.StatusTimedOut || h.Node != "n1" {
		t.Fatalf("status %s node %q", h.Status, h.Node)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the timed-out run took %s", d)
	}
	// Ended when shadow returned, not later: nothing of the run is left.
	if left := r.nodeProcs("n1"); len(left) != 0 {
		t.Errorf("left running on the node: %q", left)
	}
	if left := e2e.ProcsWith("sleep " + marker); len(left) != 0 {
		t.Errorf("the command outlived the run: %v", left)
	}
	if mounts, _ := r.onNode("n1", "grep -c overlay /proc/self/mountinfo || true"); strings.TrimSpace(mounts) != "0" {
		t.Errorf("overlay mounts left on the node: %s", mounts)
	}

	// Ctrl-C, then kill -9 of shadow itself (its sessions' stdin ends, and
	// its master dies with it): the node ends the command either way.
	for i, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		m := marker + strconv.Itoa(i+1)
		c := r.Cmd("--headless", "--json", "--remote", "n1", "-C", r.WS, spec, "--", "sh", "-c", "sleep "+m)
		c.Env = append(c.Env, "SHADOW_SSH_COMMAND=ssh -F "+r.sshConfig)
		var stdout bytes.Buffer
		c.Stdout = &stdout
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		for j := 0; len(e2e.ProcsWith("sleep "+m)) == 0; j++ {
			if j > 600 {
				c.Process.Kill()
				t.Fatalf("%s: the command never started on the node", sig)
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.Process.Signal(sig)
		c.Wait()
		if sig == syscall.SIGINT {
			if rep := r.Report(stdout.String()); !rep.Cancelled || rep.Hypotheses[0].Status != engine.StatusCancelled {
				t.Errorf("after SIGINT: cancelled=%v status=%s", rep.Cancelled, rep.Hypotheses[0].Status)
			}
			if left := r.nodeProcs("n1"); len(left) != 0 {
				t.Errorf("left running on the node after SIGINT: %q", left)
			}
		}
		r.waitNodeIdle("n1")
		// After kill -9 nothing of shadow is left to wait for the node:
		// the node notices its session's end and ends the command on its
		// own time, so the command must be gone soon, not at once.
		left := e2e.ProcsWith("sleep " + m)
		for j := 0; sig == syscall.SIGKILL && len(left) != 0 && j < 200; j++ {
			time.Sleep(25 * time.Millisecond)
			left = e2e.ProcsWith("sleep " + m)
		}
		if len(left) != 0 {
			t.Errorf("%s: the command outlived the run: %v", sig, left)
		}
	}
}

func TestE2ERemoteNodeDiesMidRunItsWorkMoves(t *testing.T) {
	r := newRemoteEnv(t, "n1", "n2")
	r.Write("v.txt", "bad\n", 0o644)
	r.Write("delay", "0\n", 0o644)
	marker := "2.05432" + strconv.Itoa(os.Getpid()) // a valid duration for sleep
	spec := r.Spec(map[string]any{
		"hypotheses": []any{hypWith("a", "0", "good"), hypWith("b", "0", "")},
		"remote":     []any{map[string]any{"node": "n1", "jobs": 1}, map[string]any{"node": "n2", "jobs": 1}, "down"},
	})
	c := r.Cmd("--headless", "--json", "-C", r.WS, spec, "--", "sh", "-c", "sleep "+marker+"; "+delayCheck)
	c.Env = append(c.Env, "SHADOW_SSH_COMMAND=ssh -F "+r.sshConfig)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Both hypotheses are running, one on each node: n1 dies.
	for i := 0; len(e2e.ProcsWith("sleep "+marker)) < 2; i++ {
		if i > 600 {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("the hypotheses never started on both nodes\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.killNode("n1")
	err := c.Wait()
	if err != nil {
		t.Fatalf("exit %v\nstderr: %s\n%s", err, stderr.String(), stdout.String())
	}
	rep := r.Report(stdout.String())
	if rep.Winner == nil || *rep.Winner != "a" {
		t.Fatalf("winner %v\n%s", rep.Winner, stdout.String())
	}
	moved := 0
	for _, h := range rep.Hypotheses {
		if h.Node != "n2" {
			t.Errorf("%s finished on %q, want n2", h.Name, h.Node)
		}
		if h.Error != nil && strings.Contains(*h.Error, "after node n1 failed") {
			moved++
		}
	}
	if moved != 1 {
		t.Errorf("%d results say they moved from n1, want 1", moved)
	}
	// Its failure, once (the notices of a slow start are not failures).
	if n := len(regexp.MustCompile(`node n1: .*; its hypotheses go to the other nodes`).FindAllString(stderr.String(), -1)); n != 1 {
		t.Errorf("node n1's failure reported %d times:\n%s", n, stderr.String())
	}
	if n := strings.Count(stderr.String(), "node down:"); n != 1 {
		t.Errorf("the unreachable node reported %d times:\n%s", n, stderr.String())
	}
	r.waitNodeIdle("n2")
}

func TestE2ERemoteNoNodeWorksExits3(t *testing.T) {
	// n1's sshd is gone before the run: two nodes, neither reachable.
	r := newRemoteEnv(t, "n1")
	r.killNode("n1")
	r.Write("v.txt", "bad\n", 0o644)
	spec := r.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "a"}}})
	out, stderr, code := r.shadowRemote("--headless", "--json", "--remote", "down,n1", "-C", r.WS, spec, "--", "true")
	if code != 3 || !strings.Contains(stderr, "no remote node can run the hypotheses") {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, stderr, out)
	}
	for _, n := range []string{"down", "n1"} {
		if !regexp.MustCompile(`node ` + n + `: cannot be reached: .*(refused|closed|timed out)`).MatchString(stderr) {
			t.Errorf("the refusal does not say why node %s failed:\n%s", n, stderr)
		}
	}
	// A refused --json run prints an error object, never a report.
	if strings.Contains(out, "shadow.report/v1") || (out != "" && !strings.Contains(out, `"exit_code": 3`)) {
		t.Errorf("a refused run printed a report:\n%s", out)
	}
	if runs, _ := os.ReadDir(filepath.Join(r.State, "shadow")); len(runs) > 0 {
		for _, e := range runs {
			if e.Name() == "workspaces" || strings.HasPrefix(e.Name(), "ws") {
				t.Logf("state: %s", e.Name())
			}
		}
	}
}

// A node whose probe finds no overlay (user namespaces blocked there, as
// SHADOW_TEST_NO_USERNS simulates) runs each hypothesis in its own copy of
// the mirror, in parallel, and each result names that mode.
func TestE2ERemoteNodeWithoutOverlayUsesItsBestSandbox(t *testing.T) {
	r := newRemoteEnvWith(t, map[string]string{"n1": "SetEnv SHADOW_TEST_NO_USERNS=1"}, "n1")
	r.Write("v.txt", "bad\n", 0o644)
	r.Write("delay", "0\n", 0o644)
	before := e2e.Tree(t, r.WS)
	spec := r.Spec(map[string]any{"hypotheses": []any{hypWith("good", "0", "good"), hypWith("bad", "0", "")}})
	out, stderr, code := r.shadowRemote("--headless", "--json", "--remote", "n1", "-C", r.WS, spec, "--", "sh", "-c", delayCheck)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, stderr, out)
	}
	rep := r.Report(out)
	if rep.Winner == nil || *rep.Winner != "good" {
		t.Fatalf("winner %v\n%s", rep.Winner, out)
	}
	for _, h := range rep.Hypotheses {
		if h.Node != "n1" || h.Mode != "copy" {
			t.Errorf("%s: node %q mode %q, want n1 in copy mode", h.Name, h.Node, h.Mode)
		}
	}
	if got, _ := r.onNode("n1", "cat "+r.WS+"/v.txt"); got != "bad\n" {
		t.Errorf("the mirror's v.txt is %q after the run", got)
	}
	if after := e2e.Tree(t, r.WS); after != before {
		t.Errorf("local checkout changed")
	}
	r.waitNodeIdle("n1")
}

// --remote-dir puts the mirror elsewhere on the node, and the node named
// "local" runs its share here, in this machine's own sandbox.
func TestE2ERemoteDirAndTheLocalNode(t *testing.T) {
	r := newRemoteEnv(t, "n1")
	r.Write("v.txt", "bad\n", 0o644)
	r.Write("delay", "0.5\n", 0o644)
	elsewhere := filepath.Join(r.co, "elsewhere", "mirror") // empty on the node, absent here
	spec := r.Spec(map[string]any{
		"hypotheses": []any{hypWith("good", "0.5", "good"), hypWith("bad", "0.5", "")},
		"remote":     []any{map[string]any{"node": "n1", "jobs": 1}, map[string]any{"node": "local", "jobs": 1}},
	})
	out, stderr, code := r.shadowRemote("--headless", "--json", "--remote-dir", elsewhere, "-C", r.WS, spec, "--", "sh", "-c", "pwd; "+delayCheck)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, stderr, out)
	}
	rep := r.Report(out)
	if rep.Winner == nil || *rep.Winner != "good" {
		t.Fatalf("winner %v\n%s", rep.Winner, out)
	}
	nodes := map[string]string{}
	for _, h := range rep.Hypotheses {
		nodes[h.Node] = h.OutputTail
	}
	if len(nodes) != 2 || !strings.HasPrefix(nodes["n1"], elsewhere+"\n") || !strings.HasPrefix(nodes[""], r.WS+"\n") {
		t.Fatalf("want one hypothesis on n1 in %s and one here in %s, got %q", elsewhere, r.WS, nodes)
	}
	if got, err := r.onNode("n1", "cat "+elsewhere+"/v.txt; ls -A "+r.co); err != nil || got != "bad\nelsewhere\n" {
		t.Errorf("on the node: %q %v (want the mirror at --remote-dir only)", got, err)
	}
	if _, err := os.Stat(filepath.Join(r.co, "elsewhere")); err == nil {
		t.Errorf("--remote-dir was made here")
	}
}

// Two runs against one node: the second one's sync waits for the first
// run to end, so its rsync never changes the mirror under the first one's
// running overlays (which would see the change: the mirror is their lower
// layer).
func TestE2ERemoteSecondRunWaitsForTheMirror(t *testing.T) {
	r := newRemoteEnv(t, "n1")
	r.Write("v.txt", "one\n", 0o644)
	// The first run's command waits for a flag file (in the /tmp the node
	// shares with this machine) that the test makes only once the second
	// run says it waits for the mirror: no timing to guess on a loaded
	// machine.
	flag := filepath.Join(t.TempDir(), "go")
	marker := "0.10" + strconv.Itoa(os.Getpid())
	spec := r.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "a"}}})
	a := r.Cmd("--headless", "--json", "--no-record", "--tmp", "shared", "--remote", "n1", "-C", r.WS, spec, "--", "sh", "-c", "until [ -e "+flag+" ]; do sleep "+marker+"; done; cat v.txt")
	a.Env = append(a.Env, "SHADOW_SSH_COMMAND=ssh -F "+r.sshConfig)
	var aout bytes.Buffer
	a.Stdout = &aout
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Process.Kill(); a.Wait() })
	for i := 0; len(e2e.ProcsWith("sleep "+marker)) == 0; i++ {
		if i > 1200 {
			t.Fatal("the first run never started on the node")
		}
		time.Sleep(25 * time.Millisecond)
	}
	r.Write("v.txt", "two\n", 0o644)
	b := r.Cmd("--headless", "--json", "--no-record", "--remote", "n1", "-C", r.WS, spec, "--", "cat", "v.txt")
	b.Env = append(b.Env, "SHADOW_SSH_COMMAND=ssh -F "+r.sshConfig)
	var bout bytes.Buffer
	berr := &syncBuffer{}
	b.Stdout, b.Stderr = &bout, berr
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; !strings.Contains(berr.String(), "waiting for the mirror lock"); i++ {
		if i > 600 {
			b.Process.Kill()
			b.Wait()
			t.Fatalf("the second run did not say it waited:\n%s", berr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a.Wait()
	if err := b.Wait(); err != nil {
		t.Fatalf("second run: %v\n%s\n%s", err, berr.String(), bout.String())
	}
	if got := r.Report(aout.String()).Hypotheses[0].OutputTail; got != "one\n" {
		t.Errorf("the first run saw v.txt = %q: the second run synced under it", got)
	}
	if got := r.Report(bout.String()).Hypotheses[0].OutputTail; got != "two\n" {
		t.Errorf("the second run saw v.txt = %q", got)
	}
}

// The node user is not root: the node side runs unprivileged there (user
// namespaces for overlay, or a copy), as on most real nodes.
func TestE2ERemoteUnprivilegedNodeUser(t *testing.T) {
	// UsePAM: useradd leaves the account's password locked, which sshd
	// alone refuses even for a key; PAM's account check does not.
	r := newRemoteEnvAs(t, "shadowci", map[string]string{"n1": "UsePAM yes"}, "n1")
	// The node user must reach the checkout's path and read the
	// authorized keys (sshd reads them as that user).
	for _, d := range []string{filepath.Dir(r.base), r.base, r.keys} {
		os.Chmod(d, 0o755)
	}
	os.Chmod(filepath.Join(r.keys, "authorized_keys"), 0o644)
	r.Write("v.txt", "bad\n", 0o644)
	r.Write("delay", "0\n", 0o644)
	spec := r.Spec(map[string]any{"hypotheses": []any{hypWith("good", "0", "good"), hypWith("bad", "0", "")}})
	out, stderr, code := r.shadowRemote("--headless", "--json", "--remote", "n1", "-C", r.WS, spec, "--", "sh", "-c", "id -un; "+delayCheck)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, stderr, out)
	}
	rep := r.Report(out)
	if rep.Winner == nil || *rep.Winner != "good" {
		t.Fatalf("winner %v\n%s", rep.Winner, out)
	}
	for _, h := range rep.Hypotheses {
		if h.Node != "n1" || (h.Mode != "overlay" && h.Mode != "copy") || !strings.HasPrefix(h.OutputTail, "shadowci\n") {
			t.Errorf("%s: node %q mode %q output %q", h.Name, h.Node, h.Mode, h.OutputTail)
		}
	}
	t.Logf("the unprivileged node ran in %s mode", rep.Hypotheses[0].Mode)
	r.waitNodeIdle("n1")
}

// mountNS is the mount namespace of the node's sshd (readlink of its
// /proc/PID/ns/mnt), to find what runs there once sshd is gone.
func (r *remoteEnv) mountNS(name string) string {
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", r.nodes[name].cmd.Process.Pid))
	if err != nil {
		r.T.Fatal(err)
	}
	return ns
}

// procsInNS lists the live processes in mount namespace ns.
func procsInNS(ns string) []string {
	var out []string
	links, _ := filepath.Glob("/proc/[0-9]*/ns/mnt")
	for _, l := range links {
		if got, err := os.Readlink(l); err != nil || got != ns {
			continue
		}
		dir := filepath.Dir(filepath.Dir(l))
		if st, _ := os.ReadFile(filepath.Join(dir, "stat")); bytes.Contains(st, []byte(") Z ")) {
			continue
		}
		c, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		if len(c) > 0 {
			out = append(out, filepath.Base(dir)+" "+string(bytes.ReplaceAll(c, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// killSSHD is the node's network going: its sshd, listener and session
// processes, die at once; what they started (shadow's node side, the
// commands) is left to notice on its own.
func (r *remoteEnv) killSSHD(name string) {
	for _, p := range r.nodeProcs(name) {
		f := strings.Fields(p)
		if len(f) > 1 && strings.HasPrefix(f[1], "sshd") {
			pid, _ := strconv.Atoi(f[0])
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	r.nodes[name].cmd.Process.Kill()
	r.nodes[name].cmd.Wait()
}

// Every node dies mid-run: the run stops, what finished is reported, the
// hypotheses in flight are errors, those never started are not run (runs
// 0), the run is recorded, and it exits 3 naming each node and why.
func TestE2ERemoteEveryNodeDiesMidRunExits3(t *testing.T) {
	r := newRemoteEnv(t, "n1", "n2")
	r.Write("v.txt", "good\n", 0o644)
	r.Write("delay", "0\n", 0o644)
	before := e2e.Tree(t, r.WS)
	marker := "30.0654" + strconv.Itoa(os.Getpid())
	// "quick" finishes first (on either node); then "h1" and "h2" hold
	// both nodes' single slots, and "h3", "h4" wait for one.
	spec := r.Spec(map[string]any{
		"hypotheses": []any{hypWith("quick", "0", ""), hypWith("h1", marker, ""), hypWith("h2", marker, ""), hypWith("h3", marker, ""), hypWith("h4", marker, "")},
		"remote":     []any{map[string]any{"node": "n1", "jobs": 1}, map[string]any{"node": "n2", "jobs": 1}},
	})
	c := r.Cmd("--headless", "--json", "--apply", "-C", r.WS, spec, "--", "sh", "-c", delayCheck)
	c.Env = append(c.Env, "SHADOW_SSH_COMMAND=ssh -F "+r.sshConfig)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; len(e2e.ProcsWith("sleep "+marker)) < 2; i++ {
		if i > 600 {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("two hypotheses never ran at once\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	ns := map[string]string{"n1": r.mountNS("n1"), "n2": r.mountNS("n2")}
	start := time.Now()
	r.killSSHD("n1")
	r.killSSHD("n2")
	err := c.Wait()
	if took := time.Since(start); took > 60*time.Second { // keep-alives give up after 15 s
		t.Errorf("the run took %s to stop after its nodes died", took)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit %v, want 3\nstderr: %s\n%s", err, stderr.String(), stdout.String())
	}
	rep := r.Report(stdout.String())
	if !strings.Contains(rep.Error, "every remote node failed") || !strings.Contains(rep.Error, "node n1") || !strings.Contains(rep.Error, "node n2") {
		t.Errorf("the report's error does not name both nodes: %q", rep.Error)
	}
	res := e2e.ByName(rep)
	if q := res["quick"]; q == nil || q.Status != engine.StatusPassed || q.Runs != 1 {
		t.Errorf("what finished before is not kept: %+v", q)
	}
	inFlight, notRun := 0, 0
	for _, name := range []string{"h1", "h2", "h3", "h4"} {
		h := res[name]
		if h.Status != engine.StatusError || h.Error == nil {
			t.Errorf("%s: status %s error %v", name, h.Status, h.Error)
			continue
		}
		switch {
		case h.Runs == 0 && strings.HasPrefix(*h.Error, "not run: every remote node failed"):
			notRun++
		case h.Runs == 1 && strings.Contains(*h.Error, "no node is left to run it again"):
			inFlight++
		default:
			t.Errorf("%s: runs %d error %q", name, h.Runs, *h.Error)
		}
	}
	if inFlight != 2 || notRun != 2 {
		t.Errorf("%d in flight and %d not run, want 2 and 2", inFlight, notRun)
	}
	if len(rep.Applied) != 0 {
		t.Errorf("--apply wrote %v from a run that stopped", rep.Applied)
	}
	if after := e2e.Tree(t, r.WS); after != before {
		t.Errorf("local checkout changed:\n%s\n---\n%s", before, after)
	}
	// Recorded: the report on disk is the one printed.
	var recorded []string
	filepath.WalkDir(r.State, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "report.json" {
			recorded = append(recorded, p)
		}
		return nil
	})
	if len(recorded) != 1 {
		t.Fatalf("recorded reports: %v", recorded)
	} else if b, _ := os.ReadFile(recorded[0]); !bytes.Contains(b, []byte("every remote node failed")) {
		t.Errorf("the recorded report lacks the reason:\n%s", b)
	}
	// The node sides notice (stdin EOF, parent death) and end their jobs.
	for i := 0; ; i++ {
		left := append(procsInNS(ns["n1"]), procsInNS(ns["n2"])...)
		left = append(left, e2e.ProcsWith("sleep "+marker)...)
		if len(left) == 0 {
			break
		}
		if i > 400 {
			t.Fatalf("left running on the nodes: %q", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shadow_run's remote option, through the binary's MCP server, on a real
// node: the hypotheses run there and the report names it.
func TestE2ERemoteMCPRun(t *testing.T) {
	r := newRemoteEnv(t, "n1")
	r.Write("v.txt", "bad\n", 0o644)
	r.Write("delay", "0\n", 0o644)
	before := e2e.Tree(t, r.WS)
	r.Env.ExtraEnv = append(r.Env.ExtraEnv, "SHADOW_SSH_COMMAND=ssh -F "+r.sshConfig)
	m := e2e.NewMCPEnv(t, r.Env, r.WS)
	res := m.MustCall("shadow_run", map[string]any{
		"hypotheses": []any{hypWith("good", "0", "good"), hypWith("bad", "0", "")},
		"command":    []string{"sh", "-c", delayCheck},
		"remote":     []string{"n1"},
	})
	if res.IsError {
		t.Fatalf("shadow_run: %s", e2e.Text(res))
	}
	// structuredContent is the brief (docs/agents.md); the full report,
	// with its mode and sync, is behind its link.
	rep := m.Report(e2e.Structured[mcpserver.RunDoc](t, res))
	if rep.Winner == nil || *rep.Winner != "good" || rep.Mode != "remote" || len(rep.Sync) != 1 {
		t.Fatalf("report: winner %v mode %s sync %+v\n%s", rep.Winner, rep.Mode, rep.Sync, e2e.Text(res))
	}
	for _, h := range rep.Hypotheses {
		if h.Node != "n1" {
			t.Errorf("%s ran on %q", h.Name, h.Node)
		}
	}
	if after := e2e.Tree(t, r.WS); after != before {
		t.Errorf("local checkout changed")
	}
	r.waitNodeIdle("n1")
}

// --keep on a node: what each command wrote stays in the node's state
// dir, the result says where (node:path), the notice says whose it is,
// nothing of it is in the mirror or here, and kept runs older than 30
// days there are removed when a later run starts.
func TestE2ERemoteKeep(t *testing.T) {
	r := newRemoteEnv(t, "n1")
	r.Write("v.txt", "bad\n", 0o644)
	r.Write("delay", "0\n", 0o644)
	before := e2e.Tree(t, r.WS)
	old := r.home + "/.local/state/shadow/remote/kept/20000101-000000.000-old"
	if out, err := r.onNode("n1", "mkdir -p "+old+"/h && touch -d '40 days ago' "+old); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	spec := r.Spec(map[string]any{"hypotheses": []any{hypWith("good", "0", "good"), hypWith("bad", "0", "")}})
	out, stderr, code := r.shadowRemote("--headless", "--json", "--keep", "--remote", "n1", "-C", r.WS, spec, "--", "sh", "-c", "echo built by $(cat v.txt) > out.txt; "+delayCheck)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, stderr, out)
	}
	rep := r.Report(out)
	if rep.Winner == nil || *rep.Winner != "good" {
		t.Fatalf("winner %v", rep.Winner)
	}
	re := regexp.MustCompile(`kept on node n1, at n1:(/\S+)`)
	for _, h := range rep.Hypotheses {
		m := []string(nil)
		if h.Error != nil {
			m = re.FindStringSubmatch(*h.Error)
		}
		if m == nil {
			t.Errorf("%s does not say where it is kept: %v", h.Name, h.Error)
			continue
		}
		want := r.home + "/.local/state/shadow/remote/kept/" + rep.Run + "/" + h.Name
		if m[1] != want {
			t.Errorf("%s kept at %s, want %s", h.Name, m[1], want)
		}
		got, err := r.onNode("n1", "cat "+m[1]+"/out.txt")
		if err != nil || got != "built by "+strings.TrimSuffix(map[string]string{"good": "good", "bad": "bad"}[h.Name], "\n")+"\n" {
			t.Errorf("%s: kept out.txt = %q %v", h.Name, got, err)
		}
	}
	if !strings.Contains(stderr, "stays on node n1") || !strings.Contains(stderr, "`shadow gc` here does not reach it") {
		t.Errorf("no notice of what stays on the node:\n%s", stderr)
	}
	if got, _ := r.onNode("n1", "ls -A "+r.WS+"; test -e "+old+" && echo old-still-there"); strings.Contains(got, "out.txt") || strings.Contains(got, "old-still-there") {
		t.Errorf("on the node: %q", got)
	}
	if after := e2e.Tree(t, r.WS); after != before {
		t.Errorf("local checkout changed")
	}
	r.waitNodeIdle("n1")
}

// --freeze with --remote: the mirrors are synced from one copy taken at
// the start, so an edit made here while a node still waits for its mirror
// lock (another run holds it) reaches no node, nor the node "local" (its
// jobs start after every node is ready), and the report is frozen and not
// stale. Without the freeze, the late node syncs the edit.
func TestE2ERemoteFreeze(t *testing.T) {
	r, rep := lateSyncRun(t, "--freeze")
	for _, h := range rep.Hypotheses {
		if h.OutputTail != "one\n" {
			t.Errorf("%s on %q saw v.txt = %q: the edit made after the start reached it", h.Name, h.Node, h.OutputTail)
		}
	}
	if !rep.Frozen || rep.Stale || len(rep.StalePaths) != 0 {
		t.Errorf("frozen %v stale %v %v", rep.Frozen, rep.Stale, rep.StalePaths)
	}
	for _, n := range []string{"n1", "n2"} {
		r.waitNodeIdle(n)
		// The mirror holds the frozen sources.
		if got, err := r.onNode(n, "cat "+r.WS+"/v.txt"); err != nil || got != "one\n" {
			t.Errorf("mirror on %s: v.txt = %q %v", n, got, err)
		}
	}
}

// Without --freeze, an edit made while a node waits to sync reaches that
// node only: the nodes ran different sources, and the report says the run
// is stale (the change came before the first hypothesis, where the
// engine's own watch starts).
func TestE2ERemoteEditDuringTheSyncsIsStale(t *testing.T) {
	r, rep := lateSyncRun(t)
	if !rep.Stale || !slices.Contains(rep.StalePaths, "v.txt") {
		t.Errorf("stale %v %v: an edit made while the nodes were synced went unnoticed", rep.Stale, rep.StalePaths)
	}
	r.waitNodeIdle("n1")
	r.waitNodeIdle("n2")
}

// lateSyncRun is a run on n1, n2 and "local" (one slot each, one
// hypothesis each, each printing v.txt) in which n2 syncs late: another
// run holds n2's mirror until v.txt has changed here (one, then two).
func lateSyncRun(t *testing.T, flags ...string) (*remoteEnv, *engine.Report) {
	r := newRemoteEnv(t, "n1", "n2")
	r.Write("v.txt", "one\n", 0o644)
	marker := "60.06547" + strconv.Itoa(os.Getpid())
	// Run A holds n2's mirror until it is interrupted.
	holdSpec := r.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "hold"}}})
	a := r.Cmd("--headless", "--json", "--no-record", "--remote", "n2", "-C", r.WS, holdSpec, "--", "sleep", marker)
	a.Env = append(a.Env, "SHADOW_SSH_COMMAND=ssh -F "+r.sshConfig)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Process.Kill(); a.Wait() })
	for i := 0; len(e2e.ProcsWith("sleep "+marker)) == 0; i++ {
		if i > 600 {
			t.Fatal("run A never started on n2")
		}
		time.Sleep(50 * time.Millisecond)
	}
	spec := r.Spec(map[string]any{
		"hypotheses": []any{map[string]any{"name": "x"}, map[string]any{"name": "y", "edits": []any{map[string]any{"path": "y.txt", "content": "y\n"}}},
			map[string]any{"name": "z", "edits": []any{map[string]any{"path": "z.txt", "content": "z\n"}}}},
		// "local" runs its share here (with --freeze, over the same copy).
		"remote": []any{map[string]any{"node": "n1", "jobs": 1}, map[string]any{"node": "n2", "jobs": 1}, map[string]any{"node": "local", "jobs": 1}},
	})
	b := r.Cmd(append(append([]string{"--headless", "--json"}, flags...), "-C", r.WS, spec, "--", "cat", "v.txt")...)
	b.Env = append(b.Env, "SHADOW_SSH_COMMAND=ssh -F "+r.sshConfig)
	var bout bytes.Buffer
	berr := &syncBuffer{}
	b.Stdout, b.Stderr = &bout, berr
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; !strings.Contains(berr.String(), "node n2: waiting for the mirror lock"); i++ {
		if i > 600 {
			b.Process.Kill()
			b.Wait()
			t.Fatalf("run B never waited for n2's mirror:\n%s", berr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.Write("v.txt", "two\n", 0o644) // after B started, before n2 is synced
	a.Process.Signal(syscall.SIGINT) // A ends: n2's mirror is B's to sync
	if err := b.Wait(); err != nil {
		t.Fatalf("run B: %v\n%s\n%s", err, berr.String(), bout.String())
	}
	rep := r.Report(bout.String())
	nodes := map[string]bool{}
	for _, h := range rep.Hypotheses {
		nodes[h.Node] = true
	}
	if !nodes["n1"] || !nodes["n2"] || !nodes[""] {
		t.Errorf("the hypotheses ran on %v, want both nodes and this machine", nodes)
	}
	return r, rep
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// --mode is asked of every node: a node that cannot give it is reported
// and its work goes to the others, one that can runs in that mode.
func TestE2ERemoteModeIsAskedOfTheNodes(t *testing.T) {
	r := newRemoteEnvWith(t, map[string]string{"n1": "SetEnv SHADOW_TEST_NO_USERNS=1"}, "n1", "n2")
	r.Write("v.txt", "bad\n", 0o644)
	r.Write("delay", "0\n", 0o644)
	spec := r.Spec(map[string]any{"hypotheses": []any{hypWith("good", "0", "good"), hypWith("bad", "0", "")}})
	out, stderr, code := r.shadowRemote("--headless", "--json", "--mode", "overlay", "--remote", "n1,n2", "-C", r.WS, spec, "--", "sh", "-c", delayCheck)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, stderr, out)
	}
	if !strings.Contains(stderr, "node n1: overlay mode is unavailable there") {
		t.Errorf("n1's refusal is not reported:\n%s", stderr)
	}
	for _, h := range r.Report(out).Hypotheses {
		if h.Node != "n2" || h.Mode != "overlay" {
			t.Errorf("--mode overlay: %s ran on %q in %s", h.Name, h.Node, h.Mode)
		}
	}
	out, stderr, code = r.shadowRemote("--headless", "--json", "--mode", "overlay", "--remote", "n1", "-C", r.WS, spec, "--", "sh", "-c", delayCheck)
	if code != 3 || !strings.Contains(stderr, "node n1: overlay mode is unavailable there") {
		t.Errorf("--mode overlay on a node without it: exit %d\n%s", code, stderr)
	}
	for _, mode := range []string{"copy", "inplace"} {
		out, stderr, code = r.shadowRemote("--headless", "--json", "--mode", mode, "--remote", "n2", "-C", r.WS, spec, "--", "sh", "-c", delayCheck)
		if code != 0 {
			t.Fatalf("--mode %s: exit %d\nstderr: %s\n%s", mode, code, stderr, out)
		}
		for _, h := range r.Report(out).Hypotheses {
			if h.Node != "n2" || h.Mode != mode {
				t.Errorf("--mode %s: %s ran on %q in %s", mode, h.Name, h.Node, h.Mode)
			}
		}
	}
	r.waitNodeIdle("n1")
	r.waitNodeIdle("n2")
}
