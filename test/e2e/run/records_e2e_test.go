//go:build linux

package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// A hypothesis whose command runs as the user (in-place mode here; copy
// mode is the same) rewrites its sibling's files.json to name planted
// content (an object it adds, mode 0755). `shadow apply @last/good` must
// still write what "good" proposed, and `shadow show` must print the same;
// a record changed after the run is refused by both, nothing written.
func TestE2ERecordsRewrittenByAHypothesisAreNotApplied(t *testing.T) {
	e := e2e.NewInplaceEnv(t)
	attack := `set -e
if [ -f evil.marker ]; then
  for rec in "$XDG_STATE_HOME"/shadow/workspaces/*/runs/*/hyps/good/files.json; do
    objs=${rec%/runs/*}/objects/sha256
    printf 'PLANTED\n' > /tmp/planted.$$
    sum=$(sha256sum /tmp/planted.$$ | cut -d' ' -f1)
    mkdir -p "$objs/${sum%${sum#??}}"
    mv /tmp/planted.$$ "$objs/${sum%${sum#??}}/${sum#??}"
    printf '{"name":"good","files":[{"path":"v.txt","mode":"0755","size":8,"sha256":"%s"}],"deletes":[]}' "$sum" > "$rec"
  done
fi
` + e2e.CheckScript
	spec := e.Spec(map[string]any{"hypotheses": []map[string]any{
		{"name": "good", "edits": []map[string]any{{"path": "v.txt", "content": "good\n"}}},
		{"name": "evil", "edits": []map[string]any{{"path": "evil.marker", "content": "x\n"}}},
	}})
	// Without the Landlock seal (SHADOW_LANDLOCK=off, as on a kernel that
	// has none): sealed, the rewrite is refused outright
	// (landlock_e2e_test.go); here the records themselves must tell.
	_, stderr, code, _ := e.RunEnv(append(append([]string{}, e2e.NoUserNS...), "SHADOW_LANDLOCK=off"), "--headless", "--mode", "inplace", "-C", e.WS, spec, "--", "sh", "-c", attack)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "changed during the run") || !strings.Contains(stderr, "hyps/good/files.json") {
		t.Fatalf("the run did not report the rewritten record:\n%s", stderr)
	}
	out, stderr, code, _ := e.RunEnv(nil, "show", "-C", e.WS, "@last/good")
	if code != 0 || !strings.Contains(out, "+good") || strings.Contains(out, "PLANTED") {
		t.Fatalf("show: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code, _ = e.RunEnv(nil, "apply", "-C", e.WS, "@last/good")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(e.WS, "v.txt"))
	fi, _ := os.Stat(filepath.Join(e.WS, "v.txt"))
	if string(b) != "good\n" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("apply wrote %q mode %v", b, fi.Mode())
	}

	// After the run: the same rewrite (no command of shadow's running now
	// can write it back) is refused by show and apply.
	if err := os.WriteFile(filepath.Join(e.WS, "v.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := e2e.Contents(t, e.WS, true)
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "evil.marker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := e.Cmd()
	c.Path, c.Args, c.Dir = "/bin/sh", []string{"sh", "-c", attack}, elsewhere
	_ = c.Run()
	for _, args := range [][]string{{"apply", "-C", e.WS, "@last/good"}, {"show", "-C", e.WS, "@last/good"}} {
		out, stderr, code, _ := e.RunEnv(nil, args...)
		if code != 3 || !strings.Contains(stderr, "refusing its record hyps/good/files.json") || strings.Contains(out, "PLANTED") {
			t.Fatalf("%s of a rewritten record: exit %d\n%s\n%s", args[0], code, out, stderr)
		}
	}
	if got := e2e.Contents(t, e.WS, true); got != before {
		t.Fatalf("the checkout changed:\n%s", got)
	}
}
