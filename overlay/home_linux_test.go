package overlay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine"
)

// A cache the home layer holds something for is an overlay of its own,
// the layer's files below the job's writes; one the layer holds nothing
// for is no mount at all (its writes land in $HOME's upper). The feeding
// baseline's writes to both are kept at KeepHome/C, the layer's own
// files not among them, and none reaches the host.
func TestOverlayHomeLayerMountsOnlyCachesItHolds(t *testing.T) {
	root := t.TempDir()
	home, layer, keep := filepath.Join(root, "home"), filepath.Join(root, "layer"), filepath.Join(root, "keep")
	ws := filepath.Join(home, "src", "proj")
	for _, d := range []string{ws, filepath.Join(home, ".cache"), filepath.Join(home, ".npm"), filepath.Join(layer, home, ".cache", "go-build")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(layer, home, ".cache", "go-build", "old"), []byte("layer\n"), 0o644)
	sb := needOverlay(t)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "GO") && !strings.HasPrefix(kv, "npm_") && !strings.HasPrefix(kv, "CARGO") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home)
	caches := []string{filepath.Join(home, ".cache"), filepath.Join(home, ".npm"), filepath.Join(home, ".cargo", "git")}
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Env: env, Output: &out, Hyp: engine.Hypothesis{Name: "baseline"},
		HomeLayer: layer, HomeCaches: caches, KeepHome: keep,
		Command: []string{"sh", "-c", `
			for c in .cache .npm .cargo/git; do
				if grep -q " $HOME/$c " /proc/self/mountinfo; then echo "mounted $c"; fi
			done
			cat ~/.cache/go-build/old
			echo new > ~/.cache/go-build/new; echo tgz > ~/.npm/pkg.tgz`}})
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("%v %+v\n%s", err, o, out.String())
	}
	if got := out.String(); got != "mounted .cache\nlayer\n" {
		t.Errorf("inside: %q, want only ~/.cache mounted (the layer holds nothing for ~/.npm or ~/.cargo/git) and the layer's file read", got)
	}
	for p, want := range map[string]string{
		filepath.Join(keep, home, ".cache", "go-build", "new"): "new\n",
		filepath.Join(keep, home, ".npm", "pkg.tgz"):           "tgz\n",
	} {
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("kept %s = %q, %v; want %q", p, b, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(keep, home, ".cache", "go-build", "old")); err == nil {
		t.Error("the layer's own file was kept as if the job wrote it")
	}
	for _, p := range []string{filepath.Join(home, ".cache", "go-build"), filepath.Join(home, ".npm", "pkg.tgz"), filepath.Join(home, ".cargo")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists on the host", p)
		}
	}
	got := map[string]int64{}
	for _, x := range o.Outside {
		got[x.Path] = x.Bytes
	}
	if len(o.Outside) != 2 || got[filepath.Join(home, ".cache")] != 4 || got[filepath.Join(home, ".npm")] != 4 {
		t.Errorf("outside = %+v, want one entry per cache", o.Outside)
	}
}
