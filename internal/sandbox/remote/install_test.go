package remote

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The install script, run here by sh as a node runs it: the new binary is
// in place, a build unused for longer than binKeptDays is pruned, a recent
// one and anything not named like a sha256 stay.
func TestInstallScriptInstallsAndPrunesOldBuilds(t *testing.T) {
	bin := t.TempDir()
	hex := func(c string) string { return strings.Repeat(c, 64) }
	old, recent, other := filepath.Join(bin, hex("a")), filepath.Join(bin, hex("b")), filepath.Join(bin, "v1.0-linux-arm64")
	for _, d := range []string{old, recent, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "shadow"), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-30 * 24 * time.Hour)
	for _, d := range []string{old, other} {
		if err := os.Chtimes(d, long, long); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(bin, hex("c"))
	cmd := exec.Command("sh", "-c", installScript, "sh", dir)
	cmd.Stdin = strings.NewReader("new binary")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install script: %v: %s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "shadow")); err != nil || string(b) != "new binary" {
		t.Fatalf("installed binary: %q, %v", b, err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a build unused for 30 days is still there (%v)", err)
	}
	for _, d := range []string{recent, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was pruned: %v", filepath.Base(d), err)
		}
	}
}
