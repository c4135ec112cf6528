package report

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/internal/patch"
)

func TestDiffGoldens(t *testing.T) {
	lines := func(n int, from int) string {
		var b strings.Builder
		for i := from; i < from+n; i++ {
			fmt.Fprintf(&b, "l%d\n", i)
		}
		return b.String()
	}
	long := lines(20, 1)
	twoChanges := strings.Replace(strings.Replace(long, "l3\n", "L3\n", 1), "l17\n", "L17\n", 1)
	nearChanges := strings.Replace(strings.Replace(long, "l3\n", "L3\n", 1), "l10\n", "L10\n", 1)
	cases := []struct {
		name           string
		old            string
		oldOK          bool
		new            string
		newOK          bool
		want           string
		changed        int
		path           string
		skipGitOnEmpty bool
	}{
		{name: "article", path: "src/lib.rs", oldOK: true, newOK: true,
			old:     "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
			new:     "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
			want:    "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn add(a: i32, b: i32) -> i32 {\n-    a - b\n+    a + b\n }\n",
			changed: 2},
		{name: "identical", path: "x", oldOK: true, newOK: true, old: "a\n", new: "a\n"},
		{name: "both absent", path: "x"},
		{name: "created", path: "n.txt", newOK: true, new: "a\nb\n",
			want: "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n", changed: 2},
		{name: "deleted", path: "d.txt", oldOK: true, old: "a\n",
			want: "--- a/d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", changed: 1},
		{name: "empty created", path: "e", newOK: true,
			want: "diff --git a/e b/e\nnew file mode 100644\n--- /dev/null\n+++ b/e\n"},
		{name: "empty deleted", path: "e", oldOK: true,
			want: "diff --git a/e b/e\ndeleted file mode 100644\n--- a/e\n+++ /dev/null\n"},
		{name: "no newline added", path: "f", oldOK: true, newOK: true, old: "a\nb", new: "a\nb\n",
			want: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", changed: 2},
		{name: "no newline both", path: "f", oldOK: true, newOK: true, old: "a\nb", new: "a\nc",
			want: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n", changed: 2},
		{name: "two hunks", path: "f", oldOK: true, newOK: true, old: long, new: twoChanges,
			want:    "--- a/f\n+++ b/f\n@@ -1,6 +1,6 @@\n l1\n l2\n-l3\n+L3\n l4\n l5\n l6\n@@ -14,7 +14,7 @@\n l14\n l15\n l16\n-l17\n+L17\n l18\n l19\n l20\n",
			changed: 4},
		{name: "merged hunk", path: "f", oldOK: true, newOK: true, old: long, new: nearChanges,
			want:    "--- a/f\n+++ b/f\n@@ -1,13 +1,13 @@\n l1\n l2\n-l3\n+L3\n l4\n l5\n l6\n l7\n l8\n l9\n-l10\n+L10\n l11\n l12\n l13\n",
			changed: 4},
		{name: "insert in middle", path: "f", oldOK: true, newOK: true, old: lines(8, 1), new: strings.Replace(lines(8, 1), "l5\n", "l5\nX\n", 1),
			want: "--- a/f\n+++ b/f\n@@ -3,6 +3,7 @@\n l3\n l4\n l5\n+X\n l6\n l7\n l8\n", changed: 1},
		{name: "to empty", path: "f", oldOK: true, newOK: true, old: "a\n", new: "",
			want: "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n", changed: 1},
		{name: "crlf", path: "w.txt", oldOK: true, newOK: true, old: "a\r\nb\r\n", new: "a\r\nc\r\n",
			want: "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n", changed: 2},
		{name: "space in name", path: "my file", oldOK: true, newOK: true, old: "a\n", new: "b\n",
			want: "--- a/my file\t\n+++ b/my file\t\n@@ -1 +1 @@\n-a\n+b\n", changed: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed := UnifiedDiff(c.path, []byte(c.old), c.oldOK, []byte(c.new), c.newOK)
			if got != c.want || changed != c.changed {
				t.Fatalf("got (%d)\n%s\nwant (%d)\n%s", changed, got, c.changed, c.want)
			}
			if got == "" {
				return
			}
			checkRoundTrip(t, c.path, c.old, c.oldOK, c.new, c.newOK, got)
			gitApplyCheck(t, c.path, c.old, c.oldOK, c.new, c.newOK, got)
		})
	}
}

// checkRoundTrip applies diff with patch.Apply and compares with new.
func checkRoundTrip(t *testing.T, path, old string, oldOK bool, new string, newOK bool, diff string) {
	t.Helper()
	changes, err := patch.Apply(diff, func(p string) ([]byte, bool, error) {
		if p != path {
			return nil, false, fmt.Errorf("unexpected path %q", p)
		}
		return []byte(old), oldOK, nil
	})
	if err != nil {
		t.Fatalf("patch.Apply: %v\n%s", err, diff)
	}
	if len(changes) != 1 {
		t.Fatalf("changes = %+v", changes)
	}
	ch := changes[0]
	if ch.Deleted != !newOK || string(ch.Content) != new {
		t.Fatalf("round trip: got deleted=%v %q, want deleted=%v %q\n%s", ch.Deleted, ch.Content, !newOK, new, diff)
	}
}

// gitApplyCheck applies diff with the real git in a temp repo (when git is
// installed) and compares the file it leaves with new.
func gitApplyCheck(t *testing.T, path, old string, oldOK bool, new string, newOK bool, diff string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("git not installed; skipping git apply")
		return
	}
	dir := t.TempDir()
	file := filepath.Join(dir, filepath.FromSlash(path))
	if oldOK {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".patch"), []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s\n%s", args, err, out, diff)
		}
	}
	git("init", "-q")
	git("apply", "--check", ".patch")
	git("apply", ".patch")
	got, err := os.ReadFile(file)
	if newOK != (err == nil) || string(got) != new {
		t.Fatalf("git apply left %q (err %v), want %q", got, err, new)
	}
}

// TestDiffRoundTrip is the property: for random edits of random line files,
// patch.Apply(UnifiedDiff(old, new)) == new, and changed counts the +/- lines.
func TestDiffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vocab := []string{"a\n", "b\n", "c\n", "}\n", "\n", "x\r\n", "return 1\n"}
	randFile := func() string {
		var b strings.Builder
		for n := rng.Intn(30); n > 0; n-- {
			b.WriteString(vocab[rng.Intn(len(vocab))])
		}
		s := b.String()
		if rng.Intn(4) == 0 {
			s = strings.TrimSuffix(s, "\n") // no newline at end
		}
		return s
	}
	mutate := func(s string) string {
		ls := splitLines(s)
		for n := rng.Intn(5); n > 0; n-- {
			switch i := rng.Intn(len(ls) + 1); rng.Intn(3) {
			case 0:
				ls = append(ls[:i], append([]string{vocab[rng.Intn(len(vocab))]}, ls[i:]...)...)
			case 1:
				if i < len(ls) {
					ls = append(ls[:i], ls[i+1:]...)
				}
			case 2:
				if i < len(ls) {
					ls[i] = fmt.Sprintf("changed %d\n", rng.Intn(100))
				}
			}
		}
		out := strings.Join(ls, "")
		if rng.Intn(5) == 0 {
			out = strings.TrimSuffix(out, "\n")
		}
		return out
	}
	gitRuns := 0
	for i := 0; i < 2000; i++ {
		old := randFile()
		new := mutate(old)
		oldOK, newOK := rng.Intn(10) != 0, rng.Intn(10) != 0
		if !oldOK {
			old = ""
		}
		if !newOK {
			new = ""
		}
		diff, changed := UnifiedDiff("dir/f.txt", []byte(old), oldOK, []byte(new), newOK)
		if diff == "" {
			if oldOK != newOK || old != new {
				t.Fatalf("empty diff for %q -> %q", old, new)
			}
			continue
		}
		plusMinus := 0
		for _, l := range splitLines(diff) {
			if (l[0] == '+' && !strings.HasPrefix(l, "+++ ")) || (l[0] == '-' && !strings.HasPrefix(l, "--- ")) {
				plusMinus++
			}
		}
		if plusMinus != changed {
			t.Fatalf("changed = %d, diff has %d +/- lines\n%s", changed, plusMinus, diff)
		}
		checkRoundTrip(t, "dir/f.txt", old, oldOK, new, newOK, diff)
		if i%40 == 0 { // git is slow: check a sample
			gitApplyCheck(t, "dir/f.txt", old, oldOK, new, newOK, diff)
			gitRuns++
		}
	}
	t.Logf("checked %d diffs with git apply", gitRuns)
}
