package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shadow-dev/shadow/internal/mcpserver"
)

// cmdMCP serves the engine over MCP on stdio (`shadow mcp [-C DIR]`; DIR,
// default the current directory, is the cwd of calls that give none): the tools
// shadow_run, shadow_log, shadow_show and shadow_probe. stdout is the
// protocol channel, so nothing else may write to it: the process's fd 1 is
// pointed at stderr once the protocol has its own copy.
func cmdMCP(args []string) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("C", "", "default directory of tool calls that give no cwd")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return usageErr("usage: shadow mcp [-C DIR] (an MCP server on stdin/stdout; see README.md)")
	}
	proto, err := protectStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow mcp:", err)
		return exitEnv
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shadow mcp: current directory:", err)
		return exitEnv
	}
	if *dir != "" {
		if cwd, err = filepath.Abs(*dir); err != nil {
			return usageErr("-C %s: %v", *dir, err)
		}
		if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
			return usageErr("-C %s: not a directory", *dir)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	s := mcpserver.New(cwd, version, os.Stderr)
	// A client that goes away closes our stdin; the session only ends once
	// in-flight calls return, so end the runs as soon as the input does.
	in := &eofReader{r: os.Stdin, eof: s.Stop}
	err = s.Run(ctx, &mcp.IOTransport{Reader: in, Writer: proto})
	// The client is gone (or we were signalled): end the runs still going,
	// and wait for their sandboxes to be cleaned up before exiting.
	if !s.Shutdown(15 * time.Second) {
		fmt.Fprintln(os.Stderr, "shadow mcp: runs still ending after 15s; exiting anyway")
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "shadow mcp:", err)
		return exitEnv
	}
	return 0
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
