package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/inplace"
	"github.com/shadow-dev/shadow/snap"
)

// signalWriter closes ch the first time a write contains want.
type signalWriter struct {
	want string
	ch   chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.want) {
		w.once.Do(func() { close(w.ch) })
	}
	return len(p), nil
}

// A shadow_run that waits for the workspace lock (another process's
// in-place run holds it while a journal is pending) ends within a second
// of the client cancelling the call: the wait honours the call's context.
func TestRunCancelledWhileWaitingForTheWorkspaceLock(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	stateDir := snap.Store{Root: filepath.Join(state, "shadow")}.WorkspaceDir(ws)
	// An uncommitted journal: recovery must take the lock before it
	// replays (here: discards) it.
	if err := os.MkdirAll(filepath.Join(stateDir, inplace.JournalName+".tmp-held"), 0o700); err != nil {
		t.Fatal(err)
	}
	release, err := inplace.Lock(context.Background(), filepath.Join(stateDir, inplace.LockName), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()

	waiting := &signalWriter{want: "waiting for another shadow run", ch: make(chan struct{})}
	s := New(ws, "test", waiting)
	cs := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shadow_run", Arguments: map[string]any{
			"hypotheses": []any{map[string]any{"name": "b"}}, "command": []string{"true"}, "mode": "inplace"}})
		done <- err
	}()
	select {
	case <-waiting.ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never waited for the workspace lock")
	}
	cancel()
	<-done
	if !s.idle(time.Second) {
		t.Fatal("the cancelled call was still waiting for the workspace lock a second later")
	}
}
