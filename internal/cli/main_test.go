package cli

import (
	"os"
	"testing"

	"github.com/shadow-dev/shadow/overlay"
)

// The test binary doubles as the sandbox init: the probe (shadow probe,
// auto mode) re-executes it as shadow-sandbox-init inside the namespaces.
func TestMain(m *testing.M) {
	overlay.MaybeInit()
	os.Exit(m.Run())
}
