package remote

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shadow-dev/shadow/engine"
	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/internal/clone"
	"github.com/shadow-dev/shadow/overlay"
	"github.com/shadow-dev/shadow/snap"
)

func nodeMain(args []string) int {
	switch {
	case len(args) == 2 && args[0] == "hold":
		return nodeHold(args[1])
	case len(args) == 1 && args[0] == "job":
		return nodeJob()
	}
	return nodeUsage()
}

// nodeStore is the node user's own state dir: the probe cache, the mirror
// locks, upper dirs. The node side records no runs.
func nodeStore() (snap.Store, error) {
	root, err := snap.DefaultRoot()
	return snap.Store{Root: root}, err
}

// mirrorLock is the file whose lock guards the mirror at ws on this node.
func mirrorLock(store snap.Store, ws string) string {
	h := sha256.Sum256([]byte(ws))
	return filepath.Join(store.Root, "remote", "locks", hex.EncodeToString(h[:8])+".lock")
}

// nodeHold holds the mirror lock for one local run: exclusive while the
// local side syncs, then shared until stdin ends. POSIX record locks are
// used because converting one (F_SETLKW from write to read) is atomic
// (fcntl(2)), where flock(2) conversion may let a waiting sync in between.
func nodeHold(ws string) int {
	enc := json.NewEncoder(os.Stdout)
	fail := func(err error) int {
		_ = enc.Encode(holdReply{Error: err.Error()})
		return 3
	}
	store, err := nodeStore()
	if err != nil {
		return fail(err)
	}
	lockPath := mirrorLock(store, ws)
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o700); err != nil {
		return fail(err)
	}
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	if err := setLock(f, unix.F_WRLCK); err != nil {
		return fail(fmt.Errorf("lock the mirror %s: %w", ws, err))
	}
	if err := enc.Encode(holdReply{Locked: true}); err != nil {
		return 3
	}
	in := bufio.NewReader(os.Stdin)
	if line, err := in.ReadString('\n'); err != nil || strings.TrimSpace(line) != "synced" {
		return 0 // the local side gave up before or during the sync
	}
	if err := setLock(f, unix.F_RDLCK); err != nil {
		return fail(fmt.Errorf("share the mirror lock of %s: %w", ws, err))
	}
	sb, v := nodeSandbox(store, ws)
	if err := enc.Encode(holdReply{Mode: sb.Mode(), Reason: v.Reason, CPUs: runtime.NumCPU()}); err != nil {
		return 3
	}
	_, _ = io.Copy(io.Discard, in) // held until the run ends
	return 0
}

func setLock(f *os.File, typ int16) error {
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart}
	for {
		err := unix.FcntlFlock(f.Fd(), unix.F_SETLKW, &lk)
		if err != unix.EINTR {
			return err
		}
	}
}

// nodeSandbox is this node's best sandbox for the mirror at ws, as its own
// probe says: overlay shadows, else a copy of the mirror per hypothesis,
// else in place in the mirror (journaled and restored, one at a time).
func nodeSandbox(store snap.Store, ws string) (engine.Sandbox, overlay.Verdict) {
	base := store.SandboxDir()
	if rel, err := filepath.Rel(ws, base); err == nil && !strings.HasPrefix(rel, "..") {
		base = overlay.TmpSandboxes()
	}
	// The cache is keyed by the binary: its path holds its sha256.
	exe, _ := os.Executable()
	v := overlay.CachedProbe(base, store.ProbeCache(), "node:"+exe)
	// Like local runs, the command sees none of shadow's own state here,
	// nor the binaries it brought (one it replaced would run as the next
	// run's node side).
	hidden := []string{store.Root, overlay.TmpRoot()}
	if bin := filepath.Dir(filepath.Dir(exe)); filepath.Base(bin) == "bin" && filepath.Base(filepath.Dir(bin)) == "shadow" {
		hidden = append(hidden, bin)
	}
	if v.Mode == "overlay" {
		return overlay.New(v.Upper, v.Options).Mask(hidden...), v
	}
	if cb := clone.Base(store.SandboxDir(), ws); clone.Usable(cb, ws) == nil {
		return clone.New(cb, clone.Options{Exclude: hidden}), v
	}
	return inplace.New(store.WorkspaceDir(ws), io.Discard), v
}

// nodeJob runs one job. It ends the job when stdin reaches EOF (the local
// run ended, or its ssh session dropped), when no heartbeat came for
// heartbeat*heartbeatMiss, when its parent (sshd's session) dies, or on
// SIGTERM/SIGHUP/SIGINT; every way, the sandbox ends the command's whole
// tree before the outcome is sent.
func nodeJob() int {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer cancel()
	// A write to a closed stdout must be an error, not a SIGPIPE that
	// kills us before the sandbox has cleaned up. Notify, not Ignore: an
	// ignored signal would stay ignored in the command (execve(2)).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
	if os.Getppid() == 1 {
		return 3 // the parent is already gone
	}
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	send := func(m wireMsg) {
		mu.Lock()
		defer mu.Unlock()
		if enc.Encode(m) != nil {
			cancel()
		}
	}
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadBytes('\n')
	if err != nil {
		return 0
	}
	var wj wireJob
	if err := json.Unmarshal(line, &wj); err != nil {
		send(wireMsg{Error: "node: unreadable job: " + err.Error()})
		return 3
	}
	go watchStdin(ctx, in, cancel)
	store, err := nodeStore()
	if err != nil {
		send(wireMsg{Error: "node: " + err.Error()})
		return 3
	}
	sb, _ := nodeSandbox(store, wj.Workspace)
	job := engine.Job{
		Workspace: wj.Workspace, Subdir: wj.Subdir, Hyp: wj.Hyp, Command: wj.Command,
		Env: append(os.Environ(), wj.Env...), Net: wj.Net, Tmp: wj.Tmp, Collect: wj.Collect,
		Output: writerFunc(func(p []byte) (int, error) {
			send(wireMsg{Out: append([]byte(nil), p...)})
			return len(p), nil
		}),
	}
	o, err := sb.Run(ctx, job)
	if err != nil {
		send(wireMsg{Error: err.Error()})
		return 0
	}
	mode := o.Mode
	if mode == "" {
		mode = sb.Mode()
	}
	send(wireMsg{Outcome: &wireOutcome{ExitCode: o.ExitCode, Signal: o.Signal, Collected: o.Collected,
		Warnings: o.Warnings, Changed: o.Changed, Mode: mode}})
	return 0
}

// watchStdin cancels the job at EOF on stdin or when the heartbeat stops.
func watchStdin(ctx context.Context, in *bufio.Reader, cancel context.CancelFunc) {
	got := make(chan error, 1)
	go func() {
		for {
			_, err := in.ReadByte()
			got <- err
			if err != nil {
				return
			}
		}
	}()
	limit := heartbeat * heartbeatMiss
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		select {
		case err := <-got:
			if err != nil {
				cancel()
				return
			}
			t.Reset(limit)
		case <-t.C:
			cancel()
			return
		case <-ctx.Done():
			return
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
