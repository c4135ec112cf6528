package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// protectStdout returns a private copy of stdout for the MCP protocol and
// points fd 1 (and os.Stdout) at stderr, so that no stray write of this
// process or of a child that inherits fd 1 can corrupt the protocol stream.
func protectStdout() (*os.File, error) {
	fd, err := unix.FcntlInt(uintptr(1), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, err
	}
	proto := os.NewFile(uintptr(fd), "mcp-stdout")
	if err := unix.Dup3(2, 1, 0); err != nil {
		proto.Close()
		return nil, err
	}
	os.Stdout = os.Stderr
	return proto, nil
}
