package copy

// maybeSeccomp: Docker's namespace rules are Linux's (confined_linux_test.go).
func maybeSeccomp() {}
