// Package entry is the one table of shadow's hidden entry points: the ways
// this binary is started as something other than the command line (the
// sandbox init inside the namespaces, the process helper, the node side of
// --remote...), in the manner of gVisor runsc's subcommand table.
//
// Each entry point registers itself from its package's init function.
// One that runs per hypothesis (Early) takes the process over right
// there, in Register: Go initializes a package as soon as its imports are
// (the Go 1.21 order), so a registering package that imports nothing heavy
// runs before the TUI's highlighter registry or the parsers' regexps are
// initialized, and each hypothesis does not pay for them (commit 4f8f06b:
// helper start 83-120 ms -> 44-48 ms). The others are taken over by
// Dispatch, which main calls before it parses any flag.
//
// It imports nothing but os, so that it is initialized before every
// package that registers.
package entry

import "os"

// Point is one hidden entry point.
type Point struct {
	// Name says what it is, for people ("the sandbox init").
	Name string
	// Arg0, when set, is the os.Args[0] it is started with; else Arg1 is
	// the os.Args[1] (a subcommand no help lists).
	Arg0, Arg1 string
	// Early: taken over in Register, from the registering package's init.
	Early bool
	// Main is what the process runs instead of shadow; the process exits
	// with what it returns.
	Main func() int
}

// Is reports whether args (os.Args) start this entry point.
func (p Point) Is(args []string) bool {
	switch {
	case p.Arg0 != "":
		return len(args) > 0 && args[0] == p.Arg0
	case p.Arg1 != "":
		return len(args) > 1 && args[1] == p.Arg1
	}
	return false
}

var points []Point

// Register adds p to the table and, for an Early entry point this process
// was started as, runs it and exits. Call it from the package's init.
func Register(p Point) {
	points = append(points, p)
	if p.Early {
		Maybe(p)
	}
}

// Maybe runs p and exits if this process was started as p; otherwise it
// returns at once (for TestMain of packages whose tests re-execute the
// test binary as p).
func Maybe(p Point) {
	if p.Is(os.Args) {
		os.Exit(p.Main())
	}
}

// Dispatch runs the entry point this process was started as, if any, and
// exits; otherwise it returns. main calls it before anything else that
// could write output or parse flags.
func Dispatch() {
	for _, p := range points {
		Maybe(p)
	}
}

// Points is the table, in registration order.
func Points() []Point { return append([]Point(nil), points...) }
