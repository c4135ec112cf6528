package overlay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

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

// A --writable path overlayfs refuses as a lower layer (here: already two
// overlays deep, past the kernel's stacking limit) stays read-only and the
// result says so; the hypothesis still runs.
func TestOverlaySealDirOverlayfsRefusesStaysReadOnly(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("stacking two overlays to refuse a third needs mount(2) outside a namespace: root")
	}
	root := t.TempDir()
	mk := func(p string) string {
		os.MkdirAll(filepath.Join(root, p), 0o755)
		return filepath.Join(root, p)
	}
	l0, u1, w1, m1, u2, w2, m2 := mk("l0"), mk("u1"), mk("w1"), mk("m1"), mk("u2"), mk("w2"), mk("m2")
	os.WriteFile(filepath.Join(l0, "f"), []byte("orig"), 0o644)
	if err := unix.Mount("overlay", m1, "overlay", 0, "lowerdir="+l0+",upperdir="+u1+",workdir="+w1); err != nil {
		t.Skipf("overlay mount: %v", err)
	}
	defer unix.Unmount(m1, unix.MNT_DETACH)
	if err := unix.Mount("overlay", m2, "overlay", 0, "lowerdir="+m1+",upperdir="+u2+",workdir="+w2); err != nil {
		t.Skipf("second overlay mount: %v", err)
	}
	defer unix.Unmount(m2, unix.MNT_DETACH)
	ws := mk("ws")
	sb := needOverlay(t).Writable(m2)
	var out bytes.Buffer
	o, err := sb.Run(context.Background(), engine.Job{Workspace: ws, Env: os.Environ(), Output: &out, Hyp: engine.Hypothesis{Name: "h"},
		Command: []string{"sh", "-c", "cat " + m2 + "/f; echo x > " + m2 + "/f 2>&1 || echo READ-ONLY"}})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "orig") || !strings.Contains(out.String(), "READ-ONLY") {
		t.Errorf("the refused dir should be readable and read-only:\n%s", out.String())
	}
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], m2+" could not be overlaid") {
		t.Errorf("warnings = %q", o.Warnings)
	}
}
