//go:build unix

package spec

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading with O_NONBLOCK: open(2) of a FIFO
// without a writer then returns at once instead of waiting for one
// (fifo(7)); O_NOCTTY keeps a terminal device from becoming shadow's
// controlling terminal.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
