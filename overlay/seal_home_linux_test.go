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

// $HOME (holding the workspace, as usual) and a --writable dir are
// writable inside, each write reported in Outside with its kind and size
// (a cache summed in one entry), and none reaches the host; a directory
// beside the --writable one stays read-only, and writes in the workspace
// are the workspace's (Changed), not Outside.
func TestOverlaySealReportsOutsideWritesAndKeepsTheHost(t *testing.T) {
	root := t.TempDir()
	home, w, other := filepath.Join(root, "home"), filepath.Join(root, "data"), filepath.Join(root, "other")
	ws := filepath.Join(home, "src", "proj")
	for _, d := range []string{ws, w, other, filepath.Join(home, ".cache", "go-build", "ab")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# mine\n"), 0o644)
	os.WriteFile(filepath.Join(home, "gone.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(w, "f"), []byte("orig"), 0o644)
	os.WriteFile(filepath.Join(ws, "calc.py"), []byte("a - b\n"), 0o644)
	sb := needOverlay(t).Writable(w)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home)
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Env: env, Output: &out, Hyp: engine.Hypothesis{Name: "h"},
		Command: []string{"sh", "-c", `
			echo 'evil' >> ~/.bashrc; echo abc > ~/new.txt; rm ~/gone.txt
			echo xyz > ~/.cache/go-build/ab/entry-d
			echo changed > ` + w + `/f; echo 12345 > ` + w + `/g
			echo nope > ` + other + `/x 2>&1 || echo OTHER-READONLY
			echo fix > calc.py
			true`}})
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("%v %+v\n%s", err, o, out.String())
	}
	if !strings.Contains(out.String(), "OTHER-READONLY") {
		t.Errorf("a directory outside the workspace, $HOME and --writable was writable:\n%s", out.String())
	}
	got := map[string]engine.OutsideWrite{}
	for _, x := range o.Outside {
		got[x.Path] = x
	}
	want := []engine.OutsideWrite{
		{Path: filepath.Join(home, ".bashrc"), Bytes: 12, Kind: "changed"},
		{Path: filepath.Join(home, "new.txt"), Bytes: 4, Kind: "created"},
		{Path: filepath.Join(home, "gone.txt"), Kind: "deleted"},
		{Path: filepath.Join(home, ".cache", "go-build"), Bytes: 4, Kind: "changed"},
		{Path: filepath.Join(w, "f"), Bytes: 8, Kind: "changed"},
		{Path: filepath.Join(w, "g"), Bytes: 6, Kind: "created"},
	}
	for _, x := range want {
		if got[x.Path] != x {
			t.Errorf("outside[%s] = %+v, want %+v", x.Path, got[x.Path], x)
		}
	}
	if len(o.Outside) != len(want) {
		t.Errorf("outside = %+v, want only %d entries (the workspace's own writes are not outside)", o.Outside, len(want))
	}
	if strings.Join(o.Changed, ",") != "calc.py" {
		t.Errorf("changed = %v", o.Changed)
	}
	for p, c := range map[string]string{filepath.Join(home, ".bashrc"): "# mine\n", filepath.Join(home, "gone.txt"): "x", filepath.Join(w, "f"): "orig", filepath.Join(ws, "calc.py"): "a - b\n"} {
		if b, _ := os.ReadFile(p); string(b) != c {
			t.Errorf("%s on the host is %q", p, b)
		}
	}
	for _, p := range []string{filepath.Join(home, "new.txt"), filepath.Join(w, "g"), filepath.Join(other, "x"), filepath.Join(home, ".cache", "go-build", "ab", "entry-d")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists on the host", p)
		}
	}
}
