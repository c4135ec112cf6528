//go:build linux || darwin

package copy

import (
	"encoding/json"
	"syscall"
)

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
