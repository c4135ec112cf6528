package stale

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestStaleByContent(t *testing.T) {
	for _, useGit := range []bool{true, false} {
		name := "plain"
		if useGit {
			name = "git"
		}
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			write := func(p, s string) {
				t.Helper()
				full := filepath.Join(ws, p)
				os.MkdirAll(filepath.Dir(full), 0o755)
				if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range []string{"touched", "same-size", "removed", "renamed-same", "dirty-touched", "untracked-touched"} {
				write(p, p+"\n")
			}
			big := strings.Repeat("x", hashLimit+10)
			write("big", big)
			write("target/out.bin", "build output\n")
			if useGit {
				git := func(args ...string) {
					t.Helper()
					c := exec.Command("git", append([]string{"-C", ws, "-c", "user.email=a@b", "-c", "user.name=a"}, args...)...)
					if out, err := c.CombinedOutput(); err != nil {
						t.Skipf("git: %v %s", err, out)
					}
				}
				write(".gitignore", "target/\n")
				git("init", "-q")
				git("add", "touched", "same-size", "removed", "renamed-same", "dirty-touched", "big", ".gitignore")
				git("commit", "-qm", "x")
				write("dirty-touched", "dirty now\n") // modified before the run: hashed at start
				write("untracked-touched", "untracked\n")
			}
			st := ScanSources(ws)
			later := time.Now().Add(time.Hour)
			os.Chtimes(filepath.Join(ws, "touched"), later, later)
			os.Chtimes(filepath.Join(ws, "dirty-touched"), later, later)
			os.Chtimes(filepath.Join(ws, "untracked-touched"), later, later)
			os.Chtimes(filepath.Join(ws, "big"), later, later)
			write("same-size", "SAME-SIZE\n")
			os.Remove(filepath.Join(ws, "removed"))
			write("new", "new\n")
			tmp := filepath.Join(ws, ".renamed-same.tmp")
			os.WriteFile(tmp, []byte("renamed-same\n"), 0o644)
			os.Rename(tmp, filepath.Join(ws, "renamed-same"))
			write("target/out.bin", "rebuilt\n")

			got := st.Changed(ws)
			want := []string{"big", "new", "removed", "same-size"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("changed %v, want %v", got, want)
			}
			if !st.Has("touched") || st.Has("new") {
				t.Errorf("Has")
			}
		})
	}
}

// A state dir inside the checkout (a workspace at $HOME) changes during
// every run: it must not make every run stale.
func TestStaleScanExcludesStateDir(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o644)
	state := filepath.Join(ws, ".local", "state", "shadow")
	os.MkdirAll(state, 0o755)
	os.WriteFile(filepath.Join(state, "events.ndjson"), []byte("{}\n"), 0o644)
	st := ScanSources(ws, state)
	os.WriteFile(filepath.Join(state, "events.ndjson"), []byte("{}\n{}\n"), 0o644)
	os.WriteFile(filepath.Join(state, "report.json"), []byte("{}"), 0o644)
	if c := st.Changed(ws); len(c) != 0 {
		t.Errorf("state dir counted as a source change: %v", c)
	}
	if files := SourceFiles(ws, state); len(files) != 1 || files[0] != "a.txt" {
		t.Errorf("source files %v", files)
	}
}
