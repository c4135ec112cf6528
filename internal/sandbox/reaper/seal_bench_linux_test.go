package reaper

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/shadow-dev/shadow/internal/sandbox/landlock"
)

// BenchmarkStart: one command (true) under the helper, unsealed and
// sealed by Landlock (the stage's exec, the ruleset), side by side:
// go test ./internal/sandbox/reaper -run '^$' -bench Start -benchtime 30x
func BenchmarkStart(b *testing.B) {
	dir := b.TempDir()
	for _, sealed := range []bool{false, true} {
		name := "unsealed"
		var seal *landlock.Policy
		if sealed {
			if abi, why := landlock.Status(); abi == 0 {
				b.Skip("no Landlock: " + why)
			}
			name, seal = "sealed", &landlock.Policy{Write: []string{dir}, Devices: landlock.DefaultDevices}
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				st, err := Run(context.Background(), Command{Argv: []string{"/bin/true"}, Dir: dir, Env: os.Environ(), Output: io.Discard, Seal: seal}, nil)
				if err != nil || st == nil || st.Exit != 0 {
					b.Fatalf("%v %+v", err, st)
				}
			}
		})
	}
}
