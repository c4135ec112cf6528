//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The warm build-output layer (internal/sandbox/warm; docs/internals.md,
// "Warm build outputs across runs").

// GitCheckout makes e.ws a git checkout of what it holds, committed.
func (e *Env) GitCheckout() {
	e.T.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		e.T.Skip("git is not installed")
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init"}} {
		c := exec.Command("git", append([]string{"-C", e.WS}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			e.T.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// WarmLayer lists the files of the workspace's current warm generation
// (nil when there is none), with their contents.
func (e *Env) WarmLayer() map[string]string {
	e.T.Helper()
	metas, _ := filepath.Glob(filepath.Join(e.State, "shadow", "warm", "*", "meta.json"))
	if len(metas) == 0 {
		return nil
	}
	if len(metas) > 1 {
		e.T.Fatalf("several warm layers for one workspace: %v", metas)
	}
	var m struct {
		Generation int `json:"generation"`
		Files      int `json:"files"`
	}
	b, _ := os.ReadFile(metas[0])
	if err := json.Unmarshal(b, &m); err != nil {
		e.T.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(metas[0]), "gen-"+LeftPad(m.Generation))
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode().IsRegular():
			c, _ := os.ReadFile(p)
			out[rel] = string(c)
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		default:
			out[rel] = fi.Mode().String()
		}
		return nil
	})
	if err != nil {
		e.T.Fatalf("generation %d named by %s: %v", m.Generation, metas[0], err)
	}
	if len(out) != m.Files {
		e.T.Errorf("meta.json counts %d files, the generation holds %d", m.Files, len(out))
	}
	return out
}

func LeftPad(n int) string {
	s := strings.Repeat("0", 6) + Itoa(n)
	return s[len(s)-6:]
}

func Itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
