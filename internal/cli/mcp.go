package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/spf13/cobra"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/shadow-dev/shadow/internal/mcpserver"
)

// mcpCommand serves the engine over MCP on stdio (`shadow mcp [-C DIR]`;
// DIR, default the current directory, is the cwd of calls that give none):
// the tools of docs/agents.md (shadow_run, shadow_wait, shadow_log,
// shadow_show, shadow_apply, shadow_merge, shadow_probe) and the run
// resources shadow://run/ID/.... stdout
// is the protocol channel, so nothing else may write to it: the process's
// fd 1 is pointed at stderr once the protocol has its own copy. This is
// why it uses the process's own stdin and stdout, not Streams.
func mcpCommand(s Streams, version string) *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "mcp [-C DIR]",
		Short: "MCP server on stdio for coding agents",
		Long: "shadow mcp serves the tools shadow_run, shadow_wait, shadow_log, shadow_show, shadow_apply,\n" +
			"shadow_merge and shadow_probe, and the resources shadow://run/ID/report, .../HYP/diff and\n" +
			".../HYP/output, over MCP on stdin/stdout (docs/agents.md). DIR (default: the current\n" +
			"directory) is the cwd of calls that give none.",
		Args: noArgs("usage: shadow mcp [-C DIR] (an MCP server on stdin/stdout; see README.md)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return serveMCP(dir, s, version)
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", "", "default directory of tool calls that give no cwd")
	return c
}

func serveMCP(dir string, s Streams, version string) error {
	proto, err := protectStdout()
	if err != nil {
		return envErr("mcp: %v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return envErr("mcp: current directory: %v", err)
	}
	if dir != "" {
		if cwd, err = filepath.Abs(dir); err != nil {
			return usage("-C %s: %v", dir, err)
		}
		if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
			return usage("-C %s: not a directory", dir)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	srv := mcpserver.New(cwd, version, s.Err)
	// A client that goes away closes our stdin; the session only ends once
	// in-flight calls return, so end the runs as soon as the input does.
	in := &eofReader{r: os.Stdin, eof: srv.Stop}
	err = srv.Run(ctx, mcpserver.StdioTransport(in, proto, s.Err))
	// The client is gone (or we were signalled): end the runs still going,
	// and wait for their sandboxes to be cleaned up before exiting.
	if !srv.Shutdown(15 * time.Second) {
		fmt.Fprintln(s.Err, "shadow mcp: runs still ending after 15s; exiting anyway")
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return envErr("mcp: %v", err)
	}
	return nil
}

// eofReader calls eof (once) when reading fails: the client closed stdin
// or the pipe broke.
type eofReader struct {
	r    io.ReadCloser
	eof  func()
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(e.eof)
	}
	return n, err
}

func (e *eofReader) Close() error { return e.r.Close() }
