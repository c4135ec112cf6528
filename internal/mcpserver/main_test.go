package mcpserver

import (
	"os"
	"testing"

	"github.com/shadow-dev/shadow/overlay"
)

// The test binary doubles as the sandbox init: the probe and overlay runs
// re-execute it as shadow-sandbox-init inside the namespaces.
func TestMain(m *testing.M) {
	overlay.MaybeInit()
	os.Exit(m.Run())
}
