// Command seccompexec runs a command under dockerseccomp's filter: new
// namespaces forbidden as in a Docker or Kubernetes container's default
// seccomp profile.
//
//	seccompexec COMMAND [ARG...]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/shadow-dev/shadow/internal/sandbox/copy/dockerseccomp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: seccompexec COMMAND [ARG...]")
		os.Exit(2)
	}
	runtime.LockOSThread()
	if err := dockerseccomp.Install(); err != nil {
		fmt.Fprintln(os.Stderr, "seccompexec:", err)
		os.Exit(125)
	}
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "seccompexec:", err)
		os.Exit(127)
	}
	err = syscall.Exec(path, os.Args[1:], os.Environ())
	fmt.Fprintln(os.Stderr, "seccompexec: exec:", err)
	os.Exit(126)
}
