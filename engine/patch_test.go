package engine

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// fakeFS serves ApplyPatch's reads from a map.
func fakeFS(files map[string]string) func(string) ([]byte, bool, error) {
	return func(p string) ([]byte, bool, error) {
		c, ok := files[p]
		if !ok {
			return nil, false, nil
		}
		return []byte(c), true, nil
	}
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestPatchApply(t *testing.T) {
	calc := "def add(a, b):\n    return a - b\n\ndef sub(a, b):\n    return a - b\n"
	cases := []struct {
		name  string
		files map[string]string
		patch string
		want  []PatchChange
	}{
		{
			name:  "git diff",
			files: map[string]string{"calc.py": calc},
			patch: "diff --git a/calc.py b/calc.py\nindex 1111111..2222222 100644\n--- a/calc.py\n+++ b/calc.py\n@@ -1,3 +1,3 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n \n",
			want:  []PatchChange{{Path: "calc.py", Content: []byte(strings.Replace(calc, "a - b", "a + b", 1))}},
		},
		{
			name:  "no prefixes, diff -u timestamps, leading junk",
			files: map[string]string{"src/calc.py": calc},
			patch: "Fix add.\n\n--- src/calc.py\t2024-01-01 00:00:00.000000000 +0000\n+++ src/calc.py\t2024-01-02 00:00:00.000000000 +0000\n@@ -2 +2 @@\n-    return a - b\n+    return a + b\n",
			want:  []PatchChange{{Path: "src/calc.py", Content: []byte(strings.Replace(calc, "a - b", "a + b", 1))}},
		},
		{
			name:  "offset: stated line is wrong",
			files: map[string]string{"f": numbered(30)},
			patch: "--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n line 19\n-line 20\n+LINE 20\n line 21\n",
			want:  []PatchChange{{Path: "f", Content: []byte(strings.Replace(numbered(30), "line 20\n", "LINE 20\n", 1))}},
		},
		{
			name:  "multiple hunks, second shifted by the first",
			files: map[string]string{"f": numbered(30)},
			patch: "--- a/f\n+++ b/f\n@@ -2,3 +2,4 @@\n line 2\n+inserted\n line 3\n line 4\n@@ -20,3 +21,2 @@\n line 20\n-line 21\n line 22\n",
			want: []PatchChange{{Path: "f", Content: []byte(strings.Replace(strings.Replace(numbered(30),
				"line 2\n", "line 2\ninserted\n", 1), "line 21\n", "", 1))}},
		},
		{
			name:  "create and delete, multiple files",
			files: map[string]string{"old.txt": "a\nb\n"},
			patch: "diff --git a/new.txt b/new.txt\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\ndiff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
			want:  []PatchChange{{Path: "new.txt", Content: []byte("x\ny\n"), Mode: 0o755}, {Path: "old.txt", Deleted: true}},
		},
		{
			name:  "empty files created and deleted (git header only)",
			files: map[string]string{"gone": ""},
			patch: "diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/gone b/gone\ndeleted file mode 100644\nindex e69de29..0000000\n",
			want:  []PatchChange{{Path: "empty", Content: []byte{}, Mode: 0o644}, {Path: "gone", Deleted: true}},
		},
		{
			name:  "diff -N: new file under its own name",
			patch: "diff -ruN a/n.txt b/n.txt\n--- a/n.txt\t1970-01-01 00:00:00.000000000 +0000\n+++ b/n.txt\t2024-01-01 00:00:00.000000000 +0000\n@@ -0,0 +1 @@\n+n\n",
			want:  []PatchChange{{Path: "n.txt", Content: []byte("n\n")}},
		},
		{
			name:  "mode change only",
			files: map[string]string{"run.sh": "echo\n"},
			patch: "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
			want:  []PatchChange{{Path: "run.sh", Content: []byte("echo\n"), Mode: 0o755}},
		},
		{
			name:  "no newline at end of file",
			files: map[string]string{"f": "a\nb"},
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n",
			want:  []PatchChange{{Path: "f", Content: []byte("a\nc\n")}},
		},
		{
			name:  "crlf content preserved",
			files: map[string]string{"w.txt": "a\r\nb\r\nc\r\n"},
			patch: "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n",
			want:  []PatchChange{{Path: "w.txt", Content: []byte("a\r\nB\r\nc\r\n")}},
		},
		{
			name:  "blank context line without its space",
			files: map[string]string{"f": "a\n\nb\n"},
			patch: "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n",
			want:  []PatchChange{{Path: "f", Content: []byte("a\n\nc\n")}},
		},
		{
			name:  "quoted name",
			files: map[string]string{"tab\there": "a\n"},
			patch: "diff --git \"a/tab\\there\" \"b/tab\\there\"\n--- \"a/tab\\there\"\n+++ \"b/tab\\there\"\n@@ -1 +1 @@\n-a\n+b\n",
			want:  []PatchChange{{Path: "tab\there", Content: []byte("b\n")}},
		},
		{
			name:  "same file twice applies in sequence",
			files: map[string]string{"f": "a\n"},
			patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n",
			want:  []PatchChange{{Path: "f", Content: []byte("c\n")}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ApplyPatch(c.patch, fakeFS(c.files))
			if err != nil {
				t.Fatal(err)
			}
			if showChanges(got) != showChanges(c.want) {
				t.Fatalf("got  %s\nwant %s", showChanges(got), showChanges(c.want))
			}
		})
	}
}

func TestPatchRefused(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		patch string
		want  string
	}{
		{"context mismatch names file, hunk, line", map[string]string{"calc.py": numbered(30)},
			"--- a/calc.py\n+++ b/calc.py\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+x\n line 4\n@@ -14,3 +14,3 @@\n line 14\n-nope\n+x\n line 16\n",
			"patch does not apply: calc.py hunk 2 at line 14"},
		{"hunks out of order", map[string]string{"f": numbered(30)},
			"--- a/f\n+++ b/f\n@@ -20 +20 @@\n-line 20\n+x\n@@ -2 +2 @@\n-line 2\n+y\n",
			"patch does not apply: f hunk 2 at line 2"},
		{"missing file", nil, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", "patch changes f, but it does not exist"},
		{"create over existing", map[string]string{"f": "a\n"}, "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+b\n", "patch creates f, but it already exists"},
		{"delete leaves lines", map[string]string{"f": "a\nb\n"}, "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", "f is deleted but 1 line(s) would remain"},
		{"truncated hunk", map[string]string{"f": "a\nb\n"}, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n", "f hunk 1: patch ends inside the hunk"},
		{"bad counts", map[string]string{"f": "a\nb\n"}, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\nb\n", "unexpected line \"b\""},
		{"bad hunk header", map[string]string{"f": "a\n"}, "--- a/f\n+++ b/f\n@@ -x +1 @@\n", "bad hunk header"},
		{"rename", map[string]string{"a": "x\n"}, "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n", "renames or copies"},
		{"binary", map[string]string{"a": "x\n"}, "diff --git a/a b/a\nindex 1..2 100644\nBinary files a/a and b/a differ\n", "binary file a: not supported"},
		{"symlink", nil, "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n", "only regular files"},
		{"no file in patch", nil, "just words\n", "patch holds no file diff"},
		{"both dev null", nil, "--- /dev/null\n+++ /dev/null\n", "both sides are /dev/null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ApplyPatch(c.patch, fakeFS(c.files))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v (changes %s), want it to contain %q", err, showChanges(got), c.want)
			}
		})
	}
}

func TestPatchReadError(t *testing.T) {
	_, err := ApplyPatch("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", func(string) ([]byte, bool, error) {
		return nil, false, os.ErrPermission
	})
	if err == nil || !strings.Contains(err.Error(), "f: permission denied") {
		t.Fatalf("err = %v", err)
	}
}

func showChanges(cs []PatchChange) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "{%q deleted=%v mode=%o nil=%v %q} ", c.Path, c.Deleted, c.Mode, c.Content == nil, c.Content)
	}
	return b.String()
}
