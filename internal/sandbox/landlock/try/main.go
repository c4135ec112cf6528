//go:build ignore

// try: run a command sealed (experiments only, not committed).
//
//	LLWRITE=dir1:dir2 go run main.go CMD ARGS
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

func main() {
	p := landlock.Policy{Write: strings.Split(os.Getenv("LLWRITE"), ":"), Devices: landlock.DefaultDevices, Net: os.Getenv("LLNET") != ""}
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		panic(err)
	}
	exe, _ := os.Executable()
	sp, argv, env, _ := landlock.Stage(exe, p, path, os.Args[1:], os.Environ())
	pid, err := syscall.ForkExec(sp, argv, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}, Dir: "."})
	if err != nil {
		panic(err)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
	fmt.Fprintln(os.Stderr, "exit", ws.ExitStatus())
	os.Exit(ws.ExitStatus())
}
