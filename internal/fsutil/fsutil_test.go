package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemoveTreeUnwritableDirs(t *testing.T) {
	dir := t.TempDir()
	inner := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(inner, "f"), []byte("x"), 0o444)
	os.Chmod(inner, 0)
	os.Chmod(filepath.Join(dir, "a"), 0o555)
	if err := RemoveTree(filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !os.IsNotExist(err) {
		t.Errorf("tree still there: %v", err)
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "data"), nil, 0o644)
	if p, err := LookPath("tool", "bin", dir); err != nil || p != filepath.Join(bin, "tool") {
		t.Errorf("relative PATH entry: %q %v", p, err)
	}
	if _, err := LookPath("data", bin, dir); err == nil {
		t.Errorf("a non-executable file was found")
	}
	if p, _ := LookPath("./bin/tool", "", dir); p != filepath.Join(bin, "tool") {
		t.Errorf("slash name: %q", p)
	}
}
