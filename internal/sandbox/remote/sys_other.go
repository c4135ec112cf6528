//go:build !linux

package remote

import "syscall"

// masterAttr: no parent-death signal outside Linux; the master ends with
// the run's Close, or with the node's keep-alives when shadow is killed.
func masterAttr() *syscall.SysProcAttr { return nil }
