//go:build unix

package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hypothesis (same uid as shadow) drops a git into a directory early in
// PATH that it can write, as ~/.local/bin is under Debian's ~/.profile:
// shadow must resolve git past it, to the root-owned one.
func TestToolSkipsPlantedProgramInWritablePathDir(t *testing.T) {
	real, err := resolveTool("git", "/usr/local/bin:/usr/bin:/bin")
	if err != nil {
		t.Skipf("no root-owned git to resolve to: %v", err)
	}
	planted := t.TempDir()
	if err := os.WriteFile(filepath.Join(planted, "git"), []byte("#!/bin/sh\ntouch /tmp/pwned\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := resolveTool("git", planted+":/usr/local/bin:/usr/bin:/bin")
	if err != nil {
		t.Fatal(err)
	}
	if got != real {
		t.Fatalf("git resolved to %s, want the root-owned %s (the planted one is in %s)", got, real, planted)
	}
}

// Only in an untrusted directory: refused, naming where and why.
func TestToolRefusesProgramOnlyInWritableDir(t *testing.T) {
	planted := t.TempDir()
	if err := os.WriteFile(filepath.Join(planted, "shadow-h2-tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := resolveTool("shadow-h2-tool", planted)
	if err == nil || !strings.Contains(err.Error(), planted) {
		t.Fatalf("want a refusal naming %s, got %v", planted, err)
	}
}

func TestTrustedPath(t *testing.T) {
	if ok, why := TrustedPath("/"); !ok {
		t.Fatalf("/ untrusted: %s", why)
	}
	d := t.TempDir() // under /tmp: world-writable ancestor, or the user's own
	if ok, _ := TrustedPath(d); ok {
		t.Fatalf("%s trusted", d)
	}
	home, err := os.UserHomeDir()
	if err == nil && home != "/" {
		if ok, _ := TrustedPath(home); ok {
			t.Fatalf("$HOME %s trusted", home)
		}
	}
	// A symlink from a trusted place into an untrusted one is judged by
	// its target.
	link := filepath.Join(d, "l")
	if err := os.Symlink("/usr/bin", link); err == nil {
		if ok, why := TrustedPath(link); !ok {
			t.Fatalf("%s -> /usr/bin untrusted: %s", link, why)
		}
	}
}
