package mcp

import (
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// The test binary doubles as the shadow binary (e2e.Main).
func TestMain(m *testing.M) { e2e.Main(m) }
