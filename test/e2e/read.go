//go:build linux

package e2e

import (
	"os"
	"path/filepath"
)

func (e *Env) Read(rel string) string {
	b, _ := os.ReadFile(filepath.Join(e.WS, rel))
	return string(b)
}
