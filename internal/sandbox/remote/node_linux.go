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
	"github.com/shadow-dev/shadow/snap"
)

func nodeMain(args []string, open NodeOpener) int {
	switch {
	case len(args) == 2 && args[0] == "hold":
		return nodeHold(args[1], open)
	}
	return nodeUsage()
}

// mirrorLock is the file whose lock guards the mirror at ws on this node.
func mirrorLock(store snap.Store, ws string) string {
	h := sha256.Sum256([]byte(ws))
	return filepath.Join(store.Root, "remote", "locks", hex.EncodeToString(h[:8])+".lock")
}

// nodeHold is the node side of one local run: it holds the mirror lock,
// exclusive while the local side syncs, then shared until stdin ends, and
// meanwhile runs the jobs it is sent. POSIX record locks are used because
// converting one (F_SETLKW from write to read) is atomic (fcntl(2)), where
// flock(2) conversion may let a waiting sync in between.
func nodeHold(ws string, open NodeOpener) int {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer cancel()
	// A write to a closed stdout must be an error, not a SIGPIPE that
	// kills us before the sandboxes have cleaned up. Notify, not Ignore:
	// an ignored signal would stay ignored in the commands (execve(2)).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// sshd's session process is our parent: when it dies, so do the jobs.
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
	if os.Getppid() == 1 {
		return 3
	}
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	send := func(m nodeMsg) {
		mu.Lock()
		defer mu.Unlock()
		if enc.Encode(m) != nil {
			cancel() // the connection is gone
		}
	}
	fail := func(err error) int {
		send(nodeMsg{Error: err.Error()})
		return 3
	}
	// The node user's own state dir: the probe cache, the mirror locks,
	// upper dirs. The node side records no runs.
	store, err := snap.DefaultStore()
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
	// F_SETLK first: a conflicting lock fails it with EACCES or EAGAIN
	// (fcntl(2)), and the local side is told that this run waits.
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk); err != nil {
		if err != unix.EACCES && err != unix.EAGAIN && err != unix.EINTR {
			return fail(fmt.Errorf("lock the mirror %s: %w", ws, err))
		}
		send(nodeMsg{Waiting: true})
		if err := setLock(f, unix.F_WRLCK); err != nil {
			return fail(fmt.Errorf("lock the mirror %s: %w", ws, err))
		}
	}
	send(nodeMsg{Locked: true})
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	line, err := in.ReadString('\n')
	synced := strings.Fields(line) // "synced [MODE]": MODE is --mode
	if err != nil || len(synced) == 0 || synced[0] != "synced" {
		return 0 // the local side gave up before or during the sync
	}
	if err := setLock(f, unix.F_RDLCK); err != nil {
		return fail(fmt.Errorf("share the mirror lock of %s: %w", ws, err))
	}
	mode := "auto"
	if len(synced) > 1 {
		mode = synced[1]
	}
	sb, why, err := open(store, ws, mode)
	if err != nil {
		return fail(err)
	}
	send(nodeMsg{Mode: string(sb.Mode()), Reason: why, CPUs: runtime.NumCPU()})
	kept := keptRoot(store)
	pruneKept(kept, keptFor)
	serve(ctx, cancel, in, sb, kept, send)
	return 0
}

// serve runs the jobs read from in until in ends or the heartbeat stops,
// then ends every job still running and waits for them.
func serve(ctx context.Context, cancel context.CancelFunc, in *bufio.Reader, sb engine.Sandbox, kept string, send func(nodeMsg)) {
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		for {
			b, err := in.ReadBytes('\n')
			if err != nil {
				return
			}
			select {
			case lines <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	jobs := map[int]context.CancelFunc{}
	var jmu sync.Mutex
	limit := heartbeat * heartbeatMiss
	t := time.NewTimer(limit)
	defer func() {
		t.Stop()
		cancel()
		wg.Wait()
	}()
	for {
		var b []byte
		var ok bool
		select {
		case b, ok = <-lines:
			if !ok {
				return // stdin ended: the run is over, or its connection
			}
		case <-t.C:
			return // no heartbeat: the local side is gone or hung
		case <-ctx.Done():
			return
		}
		t.Reset(limit)
		if len(strings.TrimSpace(string(b))) == 0 {
			continue // heartbeat
		}
		var c nodeCmd
		if err := json.Unmarshal(b, &c); err != nil || c.ID <= 0 {
			send(nodeMsg{Error: fmt.Sprintf("node: unreadable command %q", strings.TrimSpace(string(b)))})
			continue
		}
		jmu.Lock()
		if c.Cancel {
			if stop := jobs[c.ID]; stop != nil {
				stop()
			}
			jmu.Unlock()
			continue
		}
		if c.Job == nil {
			jmu.Unlock()
			continue
		}
		jctx, stop := context.WithCancel(ctx)
		jobs[c.ID] = stop
		jmu.Unlock()
		wg.Add(1)
		go func(id int, wj *wireJob) {
			defer wg.Done()
			defer func() {
				jmu.Lock()
				delete(jobs, id)
				jmu.Unlock()
				stop()
			}()
			send(runJob(jctx, sb, kept, id, wj, send))
		}(c.ID, c.Job)
	}
}

// runJob runs one job in the node's sandbox, streaming its output, and
// returns its last message. With --keep (wj.Keep) what the command wrote
// is left under kept, where the outcome says.
func runJob(ctx context.Context, sb engine.Sandbox, kept string, id int, wj *wireJob, send func(nodeMsg)) nodeMsg {
	if err := isolationRefused(sb.Mode(), wj); err != nil {
		return nodeMsg{ID: id, Error: err.Error()}
	}
	keepDir := ""
	if wj.Keep != "" {
		var err error
		if keepDir, err = keptDir(kept, wj.Keep); err != nil {
			return nodeMsg{ID: id, Error: err.Error()}
		}
	}
	job := engine.Job{KeepDir: keepDir,
		Workspace: wj.Workspace, Subdir: wj.Subdir, Hyp: wj.Hyp, Command: wj.Command,
		Env: append(os.Environ(), wj.Env...), Net: wj.Net, Tmp: wj.Tmp, Collect: wj.Collect,
		Output: writerFunc(func(p []byte) (int, error) {
			send(nodeMsg{ID: id, Out: append([]byte(nil), p...)})
			return len(p), nil
		}),
	}
	o, err := sb.Run(ctx, job)
	if err != nil {
		return nodeMsg{ID: id, Error: err.Error()}
	}
	mode := o.Mode
	if mode == "" {
		mode = string(sb.Mode())
	}
	out := &wireOutcome{ExitCode: o.ExitCode, Signal: o.Signal, Collected: o.Collected,
		Warnings: o.Warnings, Changed: o.Changed, Outside: o.Outside, Mode: mode}
	if keepDir != "" {
		if fi, err := os.Stat(keepDir); err == nil && fi.IsDir() {
			out.Kept = keepDir
		} else {
			out.Warnings = append(out.Warnings, fmt.Sprintf("--keep: the node kept nothing (its sandbox is %s)", mode))
		}
	}
	return nodeMsg{ID: id, Outcome: out}
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

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
