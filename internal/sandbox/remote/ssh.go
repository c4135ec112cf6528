package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/shadow-dev/shadow/overlay"

	"github.com/shadow-dev/shadow/internal/fsutil"
)

// Client runs commands on nodes with the user's ssh ($SHADOW_SSH_COMMAND,
// default "ssh"). With OpenSSH, every node gets one master connection per
// run (ControlMaster, ssh_config(5)) and every command of the run is a
// session multiplexed over it: one handshake per node, not per hypothesis.
type Client struct {
	argv    []string // the ssh program and the user's own arguments
	openSSH bool
	ctlDir  string // holds the control sockets; "" without multiplexing
}

// aliveOptions make a dropped connection visible: the master asks the
// server for a reply every 5s and gives up after 3 missed ones
// (ssh_config(5) ServerAliveInterval, ServerAliveCountMax), which ends
// every session over it. BatchMode: never prompt (the TUI owns the
// terminal); keys come from the agent or the config.
var aliveOptions = []string{"-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3", "-o", "BatchMode=yes"}

// NewClient reads $SHADOW_SSH_COMMAND. ctlBase is where the control
// sockets go: a directory under shadow's state dir, which local sandboxes
// mask, since a control socket lets whoever can reach it run commands on
// the node as the user. notices hears what is skipped with an ssh that is
// not OpenSSH.
func NewClient(ctlBase string, notices io.Writer) (*Client, error) {
	spec := os.Getenv("SHADOW_SSH_COMMAND")
	if strings.TrimSpace(spec) == "" {
		spec = "ssh"
	}
	argv, err := SplitCommand(spec)
	if err != nil {
		return nil, fmt.Errorf("$SHADOW_SSH_COMMAND %q: %v", spec, err)
	}
	// By absolute path from a directory only root can write
	// (fsutil.Tool): a hypothesis must not get its own ssh run.
	p, err := fsutil.Tool(argv[0])
	if err != nil {
		return nil, fmt.Errorf("ssh client %q: %v (set $SHADOW_SSH_COMMAND to an absolute path or install OpenSSH)", argv[0], err)
	}
	argv[0] = p
	c := &Client{argv: argv, openSSH: isOpenSSH(argv[0])}
	if !c.openSSH {
		fmt.Fprintf(notices, "shadow: %s is not OpenSSH: connection multiplexing (ControlMaster) and keep-alives (ServerAliveInterval) are skipped, so every hypothesis pays its own handshake and a dropped connection is noticed only by the node's heartbeat\n", argv[0])
		return c, nil
	}
	// A unix socket path is at most 107 bytes (unix(7)), and ssh adds a
	// random suffix while it binds: keep ours short. The fallback is
	// $TMPDIR/shadow-UID, which overlay sandboxes mask too (not $TMPDIR
	// itself, which every local hypothesis sees).
	if len(ctlBase) > 60 {
		ctlBase = overlay.TmpRoot()
	}
	if err := os.MkdirAll(ctlBase, 0o700); err != nil {
		return nil, fmt.Errorf("create the ssh control directory %s: %w", ctlBase, err)
	}
	if c.ctlDir, err = os.MkdirTemp(ctlBase, "ssh-"); err != nil {
		return nil, fmt.Errorf("create the ssh control directory in %s: %w", ctlBase, err)
	}
	return c, nil
}

// isOpenSSH asks the client itself: OpenSSH's -V prints "OpenSSH_9.2p1 ...".
func isOpenSSH(prog string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, prog, "-V").CombinedOutput()
	return bytes.Contains(out, []byte("OpenSSH"))
}

// Close removes the control directory (the masters are ended by their
// nodes' Close).
func (c *Client) Close() {
	if c.ctlDir != "" {
		_ = os.RemoveAll(c.ctlDir)
	}
}

// controlPath is the node's socket. '%' is a token in ControlPath.
func (c *Client) controlPath(dest string) string {
	h := sha256.Sum256([]byte(dest))
	return strings.ReplaceAll(filepath.Join(c.ctlDir, hex.EncodeToString(h[:6])), "%", "%%")
}

// sshArgs is the ssh command line (without the remote command) for a
// session to dest: the user's argv first, so their own -o settings win
// (ssh_config(5): the first obtained value is used).
func (c *Client) sshArgs(dest string, master bool) []string {
	a := append([]string{}, c.argv...)
	if c.openSSH {
		mode := "no"
		if master {
			mode = "yes"
		}
		a = append(a, "-o", "ControlMaster="+mode, "-o", "ControlPath="+c.controlPath(dest), "-o", "ControlPersist=no")
		a = append(a, aliveOptions...)
	}
	return a
}

// Command is ssh running argv (quoted for the remote shell) on dest.
func (c *Client) Command(dest string, argv ...string) *exec.Cmd {
	a := append(c.sshArgs(dest, false), "--", dest, shellLine(argv...))
	return exec.Command(a[0], a[1:]...)
}

// RsyncShell is rsync's -e value: the same ssh, over the same master.
// rsync splits it on spaces and honours single and double quotes
// (rsync(1) --rsh).
func (c *Client) RsyncShell(dest string) (string, error) {
	a := c.sshArgs(dest, false)
	q := make([]string, len(a))
	for i, w := range a {
		if strings.ContainsRune(w, '\'') {
			return "", fmt.Errorf("ssh argument %q holds a single quote, which rsync's -e cannot carry", w)
		}
		q[i] = "'" + w + "'"
	}
	return strings.Join(q, " "), nil
}

// master is one node's master connection.
type master struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  *os.File
	once sync.Once
}

// StartMaster opens dest's master connection and waits until it accepts
// sessions. Without OpenSSH it returns nil, nil.
func (c *Client) StartMaster(ctx context.Context, dest string) (*master, error) {
	if !c.openSSH {
		return nil, nil
	}
	log, err := os.CreateTemp(c.ctlDir, "log-")
	if err != nil {
		return nil, err
	}
	a := append(c.sshArgs(dest, true), "-N", "--", dest)
	cmd := exec.Command(a[0], a[1:]...)
	// A file, not a pipe: nothing waits for the master's output to end.
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = masterAttr()
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", a[0], err)
	}
	m := &master{cmd: cmd, done: make(chan struct{}), log: log}
	go func() { _ = cmd.Wait(); close(m.done) }()
	check := append(append([]string{}, c.sshArgs(dest, false)...), "-O", "check", "--", dest)
	for {
		select {
		case <-m.done:
			return nil, fmt.Errorf("ssh %s: %s", dest, m.output())
		case <-ctx.Done():
			m.stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if exec.Command(check[0], check[1:]...).Run() == nil {
			return m, nil
		}
	}
}

func (m *master) output() string {
	b, _ := os.ReadFile(m.log.Name())
	s := strings.TrimSpace(string(b))
	if s == "" {
		s = "the connection closed"
		if m.cmd.ProcessState != nil {
			s += " (" + m.cmd.ProcessState.String() + ")"
		}
	}
	return s
}

// stop ends the master and with it every session still over it.
func (m *master) stop() {
	if m == nil {
		return
	}
	m.once.Do(func() {
		_ = m.cmd.Process.Signal(os.Interrupt)
		select {
		case <-m.done:
		case <-time.After(3 * time.Second):
			_ = m.cmd.Process.Kill()
			<-m.done
		}
		m.log.Close()
		_ = os.Remove(m.log.Name())
	})
}
