package sandbox

import (
	"runtime"
	"testing"

	"github.com/shadow-dev/shadow/internal/sandbox/entry"
)

// The hidden entry points are one table: each is there once, matched by
// its own argv[0] or argv[1], and the per-hypothesis ones (the sandbox
// init, the process helper, the Landlock stage) take the process over from their package's
// init (Early: TestInitSkipsHeavyPackageInit and
// TestReaperSkipsHeavyPackageInit measure what that saves).
func TestHiddenEntryPointsAreOneTable(t *testing.T) {
	seen := map[string]entry.Point{}
	early := 0
	for _, p := range entry.Points() {
		key := "argv[0]=" + p.Arg0
		if p.Arg0 == "" {
			key = "argv[1]=" + p.Arg1
		}
		if p.Arg0 == "" && p.Arg1 == "" {
			t.Errorf("%s: matched by nothing", p.Name)
		}
		if q, dup := seen[key]; dup {
			t.Errorf("%s and %s are both started with %s", p.Name, q.Name, key)
		}
		seen[key] = p
		if p.Early {
			early++
		}
	}
	want := []string{"argv[0]=shadow-reaper", "argv[1]=__shadow-node"}
	if runtime.GOOS == "linux" {
		want = append(want, "argv[0]=shadow-sandbox-init")
		if early < 2 {
			t.Errorf("%d early entry points, want the sandbox init and the process helper", early)
		}
	}
	for _, k := range want {
		if _, ok := seen[k]; !ok {
			t.Errorf("no entry point started with %s in the table: %v", k, seen)
		}
	}
}
