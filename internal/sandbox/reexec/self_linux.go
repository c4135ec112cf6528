package reexec

// Self is the binary to re-execute: /proc/self/exe names this very binary
// even if its file was replaced or removed since it started (proc(5)).
func Self() (string, error) { return "/proc/self/exe", nil }
