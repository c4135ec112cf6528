//go:build !linux

package dockerseccomp

import "errors"

// Install: seccomp filters are a Linux feature.
func Install() error           { return errors.New("seccomp is Linux-only") }
func InstallNoLandlock() error { return Install() }
