package cli

import (
	"os"
	"testing"

	"github.com/shadow-dev/shadow/internal/sandbox/reaper"
	"github.com/shadow-dev/shadow/overlay"
)

// The test binary doubles as the sandbox init and the process helper
// (copy and in-place modes run commands under it): the probe (shadow probe,
// auto mode) re-executes it as shadow-sandbox-init inside the namespaces.
func TestMain(m *testing.M) {
	overlay.MaybeInit()
	reaper.MaybeHelper()
	os.Exit(m.Run())
}
