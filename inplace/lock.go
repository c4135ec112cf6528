//go:build unix

package inplace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Lock takes the workspace lock at path: exclusive for an in-place run or
// a journal replay (they change the checkout), shared for an overlay run
// (it only reads the checkout, and must not see another run's hypothesis
// in it). It is an flock(2) on a file in the state dir, so it is released
// by the kernel when the process dies, however it dies. While another
// process holds it, Lock says so once on notice and waits until it is
// free or ctx ends.
func Lock(ctx context.Context, path string, exclusive bool, notice io.Writer) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("workspace lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("workspace lock: %w", err)
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	said := false
	wait := 20 * time.Millisecond
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("workspace lock %s: %w", path, err)
		}
		if !said && notice != nil {
			said = true
			who := ""
			if b, err := os.ReadFile(path); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 && processAlive(pid) {
					who = fmt.Sprintf(" (pid %d)", pid)
				}
			}
			fmt.Fprintf(notice, "shadow: waiting for another shadow run on this workspace%s to finish...\n", who)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 250*time.Millisecond)
	}
	if exclusive {
		// Who holds it, for the next waiter's notice.
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		if exclusive {
			_ = f.Truncate(0)
		}
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
