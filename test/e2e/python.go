//go:build linux

package e2e

import (
	"os/exec"
	"testing"
)

// PythonWithPytest finds an interpreter that imports pytest (a pyenv
// python3 first on PATH may lack it; Debian's python3-pytest is for
// /usr/bin/python3).
func PythonWithPytest(t *testing.T) string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import pytest").Run() == nil {
			if abs, err := exec.LookPath(p); err == nil {
				return abs
			}
		}
	}
	t.Skip("no python3 with pytest (apt-get install python3-pytest)")
	return ""
}

func Deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
