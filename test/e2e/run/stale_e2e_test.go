//go:build linux

package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// The staleness watch is on the checkout, which is every overlay's lower
// dir: what the hypotheses write, create, rename and delete inside their
// mounts goes to their upper dirs and must not make the run stale (nor
// reach the checkout).
func TestE2EHypothesisWritesAreNotStale(t *testing.T) {
	e := e2e.NewEnv(t)
	e.Write("src/a.txt", "a\n", 0o644)
	e.Write("src/b.txt", "b\n", 0o644)
	e.Write("src/deep/c.txt", "c\n", 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "base"},
		map[string]any{"name": "edit", "edits": []any{e2e.Edit("src/a.txt", "edited\n")}},
	}})
	script := `echo x >> src/b.txt; touch src/a.txt; mv src/deep src/moved; rm src/moved/c.txt; mkdir -p new/dir; echo n > new/dir/f; chmod +x src/b.txt`
	c := e.Cmd("--headless", "--json", "-C", e.WS, spec, "--", "sh", "-c", script)
	var out bytes.Buffer
	c.Stdout = &out
	if err := c.Run(); err != nil {
		t.Fatal(err, out.String())
	}
	r := e.Report(out.String())
	if r.Stale || len(r.StalePaths) != 0 {
		t.Errorf("the hypotheses' own writes made the run stale: %v", r.StalePaths)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "src/b.txt")); string(b) != "b\n" {
		t.Errorf("checkout changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "src/deep/c.txt")); err != nil {
		t.Errorf("checkout changed: %v", err)
	}

	// The control: the same command in place writes the checkout itself,
	// and the watch reports it.
	ctl := e2e.NewEnv(t)
	ctl.Write("src/a.txt", "a\n", 0o644)
	ctl.Write("src/b.txt", "b\n", 0o644)
	ctl.Write("src/deep/c.txt", "c\n", 0o644)
	c = ctl.Cmd("--headless", "--json", "--mode", "inplace", "-C", ctl.WS, ctl.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "base"}}}), "--", "sh", "-c", script)
	out.Reset()
	c.Stdout = &out
	c.Run()
	r = ctl.Report(out.String())
	// src/deep is named as itself where it was a leaf left unread, its
	// file where the watch listed it; src/moved/c.txt came and went.
	got := "," + strings.Join(r.StalePaths, ",") + ","
	for _, p := range []string{"new/dir/f", "src/b.txt"} {
		if !strings.Contains(got, ","+p+",") {
			t.Errorf("in place: stale paths %v lack %s", r.StalePaths, p)
		}
	}
	if !strings.Contains(got, ",src/deep,") && !strings.Contains(got, ",src/deep/c.txt,") {
		t.Errorf("in place: stale paths %v lack src/deep", r.StalePaths)
	}
	if strings.Contains(got, "src/a.txt") || strings.Contains(got, "src/moved/c.txt") {
		t.Errorf("in place: stale paths %v name a touch or a file that came and went", r.StalePaths)
	}
}
