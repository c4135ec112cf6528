package landlock

import (
	"fmt"
	"strings"
)

// Policy is what a sealed command may do besides reading and executing
// anything. It travels to the stage as JSON.
type Policy struct {
	// Write are the directories (and files) the command may create,
	// change, rename (across them too: the refer right) and remove
	// beneath. Each must exist.
	Write []string `json:"write"`
	// Devices are device files it may open for writing (/dev/null...),
	// skipped where missing. Not their ioctls: TIOCSTI into a terminal
	// stays refused (ABI ≥ 5).
	Devices []string `json:"devices,omitempty"`
	// Hidden are paths the command may not even read (shadow's state
	// dir, the running siblings' copies), besides /dev but for its
	// harmless nodes: readable_linux.go.
	Hidden []string `json:"hidden,omitempty"`
	// Net restricts TCP (and UDP from ABI 10) bind and connect to Ports:
	// --net isolated. Landlock rules name ports, not addresses, so a
	// port allowed here is allowed on every address.
	Net   bool     `json:"net,omitempty"`
	Ports []uint16 `json:"ports,omitempty"`
	// Required: without Landlock the stage refuses to start the command
	// (--require-seal) instead of running it unsealed.
	Required bool `json:"required,omitempty"`
}

// OffEnv=off turns the seal off, as if the kernel had no Landlock (a
// suite that must write where the seal forbids, and bench/landlock.sh's
// side-by-side figures); --require-seal then refuses.
const OffEnv = "SHADOW_LANDLOCK"

// DefaultDevices are the device files any build or test writes to.
var DefaultDevices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// Seal names what an enforced ABI gives, as the report says it
// ("landlock abi 7"); "" for none.
func Seal(abi int) string {
	if abi <= 0 {
		return ""
	}
	return fmt.Sprintf("landlock abi %d", abi)
}

// What lists, for people, what a policy enforced at abi seals: the
// report's and the probe's sentence.
func What(abi int, net bool) string {
	if abi <= 0 {
		return ""
	}
	parts := []string{"writes only its own copy, private TMPDIR and caches",
		"reads no sibling's copy nor shadow's state", "no terminal: /dev by node",
		"no SysV IPC, message queues or keys", "no ptrace of shadow"}
	if abi >= 6 {
		parts = append(parts, "no signals or abstract unix sockets outside its domain")
	}
	if net && abi >= 4 {
		parts = append(parts, "no TCP but allowed ports")
	}
	// Pathname unix sockets: Landlock's own rule from ABI 9, the socket
	// guard (seccomp user notification) below it.
	parts = append(parts, "no unix sockets outside its own places")
	return strings.Join(parts, ", ")
}
