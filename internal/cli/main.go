package cli

import (
	"os"

	"github.com/shadow-dev/shadow/internal/quietterm"
)

// Main runs the command line args as the shadow binary does and returns
// its exit code: main's, and the e2e tests' binary's when it stands in for
// shadow (test/e2e's Main), so the two dispatch the same way.
func Main(args []string, version string) int {
	quietterm.Restore()
	return ExitCode(Execute(args, OS(), version), os.Stderr)
}
