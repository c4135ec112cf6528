package judge

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Planning the canary walks the command's directory for test files: its
// cost on a Go module of 500 packages, each with a test file and ten
// source files (the walk stops at maxCanaryDirs directories with tests).
func BenchmarkPlanCanaryGo500Packages(b *testing.B) {
	ws := b.TempDir()
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module x\n"), 0o644)
	for i := range 500 {
		d := filepath.Join(ws, fmt.Sprintf("p%03d", i/20), fmt.Sprintf("q%03d", i))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "a_test.go"), []byte("package q\n"), 0o644)
		for j := range 10 {
			os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.go", j)), []byte("package q\n"), 0o644)
		}
	}
	for b.Loop() {
		if p := planCanary(ws, "", []string{"go", "test", "./..."}); p == nil || len(p.files) != maxCanaryDirs {
			b.Fatalf("%+v", p)
		}
	}
}
