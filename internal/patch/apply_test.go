package patch

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fakeFS serves Apply's reads from a map.
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
	checkApplies(t, []appliesCase{
		{
			name:  "git diff",
			files: map[string]string{"calc.py": calc},
			patch: "diff --git a/calc.py b/calc.py\nindex 1111111..2222222 100644\n--- a/calc.py\n+++ b/calc.py\n@@ -1,3 +1,3 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n \n",
			want:  []Change{{Path: "calc.py", Content: []byte(strings.Replace(calc, "a - b", "a + b", 1))}},
		},
		{
			name:  "no prefixes, diff -u timestamps, leading junk",
			files: map[string]string{"src/calc.py": calc},
			patch: "Fix add.\n\n--- src/calc.py\t2024-01-01 00:00:00.000000000 +0000\n+++ src/calc.py\t2024-01-02 00:00:00.000000000 +0000\n@@ -2 +2 @@\n-    return a - b\n+    return a + b\n",
			want:  []Change{{Path: "src/calc.py", Content: []byte(strings.Replace(calc, "a - b", "a + b", 1))}},
		},
		{
			name:  "offset: stated line is wrong",
			files: map[string]string{"f": numbered(30)},
			patch: "--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n line 19\n-line 20\n+LINE 20\n line 21\n",
			want:  []Change{{Path: "f", Content: []byte(strings.Replace(numbered(30), "line 20\n", "LINE 20\n", 1))}},
		},
		{
			name:  "multiple hunks, second shifted by the first",
			files: map[string]string{"f": numbered(30)},
			patch: "--- a/f\n+++ b/f\n@@ -2,3 +2,4 @@\n line 2\n+inserted\n line 3\n line 4\n@@ -20,3 +21,2 @@\n line 20\n-line 21\n line 22\n",
			want: []Change{{Path: "f", Content: []byte(strings.Replace(strings.Replace(numbered(30),
				"line 2\n", "line 2\ninserted\n", 1), "line 21\n", "", 1))}},
		},
		{
			name:  "create and delete, multiple files",
			files: map[string]string{"old.txt": "a\nb\n"},
			patch: "diff --git a/new.txt b/new.txt\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\ndiff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
			want:  []Change{{Path: "new.txt", Content: []byte("x\ny\n"), Mode: 0o755}, {Path: "old.txt", Deleted: true}},
		},
		{
			name:  "empty files created and deleted (git header only)",
			files: map[string]string{"gone": ""},
			patch: "diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/gone b/gone\ndeleted file mode 100644\nindex e69de29..0000000\n",
			want:  []Change{{Path: "empty", Content: []byte{}, Mode: 0o644}, {Path: "gone", Deleted: true}},
		},
		{
			name:  "diff -N: new file under its own name",
			patch: "diff -ruN a/n.txt b/n.txt\n--- a/n.txt\t1970-01-01 00:00:00.000000000 +0000\n+++ b/n.txt\t2024-01-01 00:00:00.000000000 +0000\n@@ -0,0 +1 @@\n+n\n",
			want:  []Change{{Path: "n.txt", Content: []byte("n\n")}},
		},
		{
			name:  "mode change only",
			files: map[string]string{"run.sh": "echo\n"},
			patch: "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
			want:  []Change{{Path: "run.sh", Content: []byte("echo\n"), Mode: 0o755}},
		},
		{
			name:  "no newline at end of file",
			files: map[string]string{"f": "a\nb"},
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n",
			want:  []Change{{Path: "f", Content: []byte("a\nc\n")}},
		},
		{
			name:  "crlf content preserved",
			files: map[string]string{"w.txt": "a\r\nb\r\nc\r\n"},
			patch: "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n",
			want:  []Change{{Path: "w.txt", Content: []byte("a\r\nB\r\nc\r\n")}},
		},
		{
			name:  "blank context line without its space",
			files: map[string]string{"f": "a\n\nb\n"},
			patch: "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n",
			want:  []Change{{Path: "f", Content: []byte("a\n\nc\n")}},
		},
		{
			name:  "quoted name",
			files: map[string]string{"tab\there": "a\n"},
			patch: "diff --git \"a/tab\\there\" \"b/tab\\there\"\n--- \"a/tab\\there\"\n+++ \"b/tab\\there\"\n@@ -1 +1 @@\n-a\n+b\n",
			want:  []Change{{Path: "tab\there", Content: []byte("b\n")}},
		},
		{
			name:  "pure rename",
			files: map[string]string{"a.txt": "x\n"},
			patch: "diff --git a/a.txt b/sub/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to sub/b.txt\n",
			want:  []Change{{Path: "sub/b.txt", Content: []byte("x\n"), From: "a.txt"}, {Path: "a.txt", Deleted: true}},
		},
		{
			name:  "rename with hunks and a mode change",
			files: map[string]string{"run.sh": numbered(10)},
			patch: "diff --git a/run.sh b/bin/run\nold mode 100644\nnew mode 100755\nsimilarity index 90%\nrename from run.sh\nrename to bin/run\nindex 1111111..2222222\n--- a/run.sh\n+++ b/bin/run\n@@ -4,3 +4,3 @@\n line 4\n-line 5\n+LINE 5\n line 6\n",
			want: []Change{{Path: "bin/run", Content: []byte(strings.Replace(numbered(10), "line 5\n", "LINE 5\n", 1)), Mode: 0o755, From: "run.sh"},
				{Path: "run.sh", Deleted: true}},
		},
		{
			name:  "copy reads the source as before the patch, whatever the order",
			files: map[string]string{"a": numbered(5)},
			patch: "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -2 +2 @@\n-line 2\n+two\ndiff --git a/a b/c\nsimilarity index 90%\ncopy from a\ncopy to c\n--- a/a\n+++ b/c\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+TWO\n line 3\n",
			want: []Change{{Path: "a", Content: []byte(strings.Replace(numbered(5), "line 2\n", "two\n", 1))},
				{Path: "c", Content: []byte(strings.Replace(numbered(5), "line 2\n", "TWO\n", 1)), From: "a"}},
		},
		{
			name:  "quoted rename",
			files: map[string]string{"t\tab": "x\n"},
			patch: "diff --git \"a/t\\tab\" \"b/na\\303\\257ve n\"\nsimilarity index 100%\nrename from \"t\\tab\"\nrename to \"na\\303\\257ve n\"\n",
			want:  []Change{{Path: "naïve n", Content: []byte("x\n"), From: "t\tab"}, {Path: "t\tab", Deleted: true}},
		},
		{
			name:  "swap by two renames",
			files: map[string]string{"a": "A\n", "b": "B\n"},
			patch: "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\ndiff --git a/b b/a\nsimilarity index 100%\nrename from b\nrename to a\n",
			want:  []Change{{Path: "b", Content: []byte("A\n"), From: "a"}, {Path: "a", Content: []byte("B\n"), From: "b"}},
		},
		{
			name:  "new file under the renamed name",
			files: map[string]string{"a": "A\n"},
			patch: "diff --git a/a b/a\nnew file mode 100644\n--- /dev/null\n+++ b/a\n@@ -0,0 +1 @@\n+new\ndiff --git a/a b/z\nsimilarity index 100%\nrename from a\nrename to z\n",
			want:  []Change{{Path: "a", Content: []byte("new\n"), Mode: 0o644}, {Path: "z", Content: []byte("A\n"), From: "a"}},
		},
		{
			name:  "concatenated diffs rename a created file on",
			files: map[string]string{"a": "A\n"},
			patch: "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\ndiff --git a/b b/c\nsimilarity index 100%\nrename from b\nrename to c\n",
			want:  []Change{{Path: "b", Deleted: true}, {Path: "c", Content: []byte("A\n"), From: "b"}, {Path: "a", Deleted: true}},
		},
		{
			name:  "same file twice applies in sequence",
			files: map[string]string{"f": "a\n"},
			patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n",
			want:  []Change{{Path: "f", Content: []byte("c\n")}},
		},
	})
}

// appliesCase is a patch that must apply to files with the changes want.
type appliesCase struct {
	name  string
	files map[string]string
	patch string
	want  []Change
}

func checkApplies(t *testing.T, cases []appliesCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Apply(c.patch, fakeFS(c.files))
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
	checkRefused(t, []refusedCase{
		{"context mismatch names file, hunk, line", map[string]string{"calc.py": numbered(30)},
			"--- a/calc.py\n+++ b/calc.py\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+x\n line 4\n@@ -14,3 +14,3 @@\n line 14\n-nope\n+x\n line 16\n",
			"patch does not apply: calc.py hunk 2 at line 14"},
		{"hunks out of order", map[string]string{"f": numbered(30)},
			"--- a/f\n+++ b/f\n@@ -20 +20 @@\n-line 20\n+x\n@@ -2 +2 @@\n-line 2\n+y\n",
			"patch does not apply: f hunk 2 at line 2"},
		{"missing file", nil, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", "patch changes f, but it does not exist"},
		{"create over existing", map[string]string{"f": "a\n"}, "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+b\n", "patch creates f, but it already exists"},
		{"delete leaves lines", map[string]string{"f": "a\nb\n"}, "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", "f is deleted but 1 line(s) would remain"},
		{"truncated hunk", map[string]string{"f": "a\nb\n"}, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n", `patch line 3 "@@ -1,2 +1,2 @@": fragment header miscounts lines`},
		{"bad counts", map[string]string{"f": "a\nb\n"}, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\nb\n", `patch line 5 "b": invalid line operation`},
		{"bad hunk header", map[string]string{"f": "a\n"}, "--- a/f\n+++ b/f\n@@ -x +1 @@\n", `patch line 3 "@@ -x +1 @@": invalid fragment header`},
		{"rename source missing", nil, "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n", "patch renames a, but it does not exist"},
		{"copy source missing", nil, "diff --git a/a b/b\nsimilarity index 100%\ncopy from a\ncopy to b\n", "patch copies a, but it does not exist"},
		{"rename onto existing", map[string]string{"a": "x\n", "b": "y\n"}, "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n", "patch renames a to b, but b already exists"},
		{"rename onto a written file", map[string]string{"a": "x\n"}, "--- /dev/null\n+++ b/b\n@@ -0,0 +1 @@\n+b\ndiff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n", "patch renames a to b, but the patch also writes b"},
		{"renamed twice", map[string]string{"a": "x\n"}, "diff --git a/a b/b\nrename from a\nrename to b\ndiff --git a/a b/c\nrename from a\nrename to c\n", "patch renames a twice (to b and c)"},
		{"renamed source also changed", map[string]string{"a": "x\n"}, "diff --git a/a b/b\nrename from a\nrename to b\ndiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n", "patch renames a to b, but another section also changes or deletes a"},
		{"rename hunk does not apply", map[string]string{"a": "x\n"}, "diff --git a/a b/b\nsimilarity index 50%\nrename from a\nrename to b\n--- a/a\n+++ b/b\n@@ -1 +1 @@\n-z\n+y\n", "patch does not apply: b (renamed from a) hunk 1 at line 1"},
		{"rename without to", map[string]string{"a": "x\n"}, "diff --git a/a b/b\nsimilarity index 100%\nrename from a\n", "rename/copy lacks its from or to line"},
		{"rename from, copy to", map[string]string{"a": "x\n"}, "diff --git a/a b/b\nrename from a\ncopy to b\n", "rename and copy lines at once"},
		{"rename onto itself", map[string]string{"a": "x\n"}, "diff --git a/a b/a\nrename from a\nrename to a\n", "rename of a onto itself"},
		{"rename and delete", map[string]string{"a": "x\n"}, "diff --git a/a b/b\nrename from a\nrename to b\n--- a/a\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", `patch line 5 "+++ /dev/null" (section "diff --git a/a b/b"): git file header: inconsistent new filename`},
		{"rename with other names on ---/+++", map[string]string{"a": "x\n"}, "diff --git a/a b/b\nrename from a\nrename to b\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n", `patch line 5 "+++ b/a" (section "diff --git a/a b/b"): git file header: inconsistent new filename`},
		{"bad quoted rename", map[string]string{"a": "x\n"}, "diff --git a/a b/b\nrename from \"a\nrename to b\n", `patch line 2 "rename from \"a" (section "diff --git a/a b/b"): git file header: missing name: an empty name, or a quoted name without its closing quote`},
		{"binary", map[string]string{"a": "x\n"}, "diff --git a/a b/a\nindex 1..2 100644\nBinary files a/a and b/a differ\n", "binary file a: not supported"},
		{"symlink", nil, "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n", "only regular files"},
		{"no file in patch", nil, "just words\n", "patch holds no file diff"},
		{"both dev null, no hunk", nil, "--- /dev/null\n+++ /dev/null\n", "patch holds no file diff"},
		{"both dev null", nil, "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n", "both sides are /dev/null"},
	})
}

// refusedCase is a patch that must be refused with an error holding want.
type refusedCase struct {
	name  string
	files map[string]string
	patch string
	want  string
}

func checkRefused(t *testing.T, cases []refusedCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Apply(c.patch, fakeFS(c.files))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v (changes %s), want it to contain %q", err, showChanges(got), c.want)
			}
		})
	}
}

func TestPatchReadError(t *testing.T) {
	_, err := Apply("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", func(string) ([]byte, bool, error) {
		return nil, false, os.ErrPermission
	})
	if err == nil || !strings.Contains(err.Error(), "f: permission denied") {
		t.Fatalf("err = %v", err)
	}
}

func showChanges(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "{%q deleted=%v mode=%o nil=%v %q} ", c.Path, c.Deleted, c.Mode, c.Content == nil, c.Content)
	}
	return b.String()
}

// gitRun runs git in dir, isolated from the user's and the system's
// configuration, and returns its stdout.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=shadow", "-c", "user.email=shadow@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// gitFile is a file of a work tree as git sees it: content and executable bit.
type gitFile struct {
	content string
	exec    bool
}

func snapshotTree(t *testing.T, root string) map[string]gitFile {
	t.Helper()
	out := map[string]gitFile{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		c, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = gitFile{string(c), fi.Mode()&0o100 != 0}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func showTree(tree map[string]gitFile) string {
	keys := make([]string, 0, len(tree))
	for k := range tree {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%q exec=%v %q\n", k, tree[k].exec, tree[k].content)
	}
	return b.String()
}

// TestPatchFromGit has git produce renames and copies (git mv, edits,
// git diff --cached -M or -C --find-copies-harder), applies the patch to
// the tree before with Apply, and compares with the tree git saw.
func TestPatchFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	edit := func(t *testing.T, dir, p, old, new string) {
		t.Helper()
		f := filepath.Join(dir, filepath.FromSlash(p))
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), old) {
			t.Fatalf("edit %s: %v (or %q not found)", p, err, old)
		}
		if err := os.WriteFile(f, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mv := func(t *testing.T, dir, from, to string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, filepath.FromSlash(to))), 0o755); err != nil {
			t.Fatal(err)
		}
		gitRun(t, dir, "mv", from, to)
	}
	write := func(t *testing.T, dir, p, content string, mode os.FileMode) {
		t.Helper()
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f, mode); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		files   map[string]string // initial tree; a name ending in "*" is executable
		change  func(t *testing.T, dir string)
		args    []string
		markers []string // lines the patch must hold (the case tests what it claims)
	}{
		{
			name:  "pure rename",
			files: map[string]string{"a.txt": numbered(20), "other": "o\n"},
			change: func(t *testing.T, dir string) {
				mv(t, dir, "a.txt", "dir/b.txt")
			},
			args:    []string{"-M"},
			markers: []string{"similarity index 100%", "rename from a.txt", "rename to dir/b.txt"},
		},
		{
			name:  "rename with hunks",
			files: map[string]string{"src/calc.py": numbered(40)},
			change: func(t *testing.T, dir string) {
				mv(t, dir, "src/calc.py", "lib/calc.py")
				edit(t, dir, "lib/calc.py", "line 10\n", "LINE TEN\n")
				edit(t, dir, "lib/calc.py", "line 40\n", "line 40\nline 41\n")
			},
			args:    []string{"-M"},
			markers: []string{"rename from src/calc.py", "rename to lib/calc.py", "+LINE TEN"},
		},
		{
			name:  "rename with a mode change and hunks",
			files: map[string]string{"run.sh": numbered(20)},
			change: func(t *testing.T, dir string) {
				mv(t, dir, "run.sh", "bin/run.sh")
				edit(t, dir, "bin/run.sh", "line 3\n", "line three\n")
				write(t, dir, "bin/run.sh", strings.Replace(numbered(20), "line 3\n", "line three\n", 1), 0o755)
			},
			args:    []string{"-M"},
			markers: []string{"old mode 100644", "new mode 100755", "rename to bin/run.sh"},
		},
		{
			name:  "pure rename of an executable, made non-executable",
			files: map[string]string{"tool*": numbered(5), "keep*": "x\n"},
			change: func(t *testing.T, dir string) {
				mv(t, dir, "tool", "tools/tool")
				if err := os.Chmod(filepath.Join(dir, "tools", "tool"), 0o644); err != nil {
					t.Fatal(err)
				}
				mv(t, dir, "keep", "kept") // keeps its mode: no mode lines
			},
			args:    []string{"-M"},
			markers: []string{"old mode 100755", "new mode 100644", "rename to tools/tool", "rename to kept"},
		},
		{
			name:  "quoted names",
			files: map[string]string{"sp ace/t\tab.txt": numbered(10), "naïve.txt": numbered(12)},
			change: func(t *testing.T, dir string) {
				mv(t, dir, "sp ace/t\tab.txt", "sp ace/naïve 2.txt")
				mv(t, dir, "naïve.txt", "plain.txt")
				edit(t, dir, "plain.txt", "line 6\n", "line six\n")
			},
			args:    []string{"-M"},
			markers: []string{`rename from "sp ace/t\tab.txt"`, `rename to "sp ace/na\303\257ve 2.txt"`, `rename from "na\303\257ve.txt"`},
		},
		{
			name:  "copies of a source also changed in place",
			files: map[string]string{"a": numbered(20), "b": numbered(30)[100:]},
			change: func(t *testing.T, dir string) {
				write(t, dir, "0copy", strings.Replace(numbered(20), "line 2\n", "line two\n", 1), 0o644)
				write(t, dir, "z/copy", numbered(20), 0o755)
				edit(t, dir, "a", "line 3\n", "line three\n")
			},
			args:    []string{"-C", "--find-copies-harder"},
			markers: []string{"copy from a", "copy to 0copy", "copy to z/copy", "new mode 100755", "+line three"},
		},
		{
			name:  "copy and rename of one source",
			files: map[string]string{"a": numbered(20)},
			change: func(t *testing.T, dir string) {
				mv(t, dir, "a", "b")
				edit(t, dir, "b", "line 4\n", "line four\n")
				write(t, dir, "c", strings.Replace(numbered(20), "line 9\n", "", 1), 0o644)
			},
			args:    []string{"-C"},
			markers: []string{"copy from a", "rename from a"},
		},
		{
			name:  "new content under a renamed name",
			files: map[string]string{"a": numbered(20)},
			change: func(t *testing.T, dir string) {
				mv(t, dir, "a", "b")
				write(t, dir, "a", "all new\n", 0o644)
			},
			args:    []string{"-C", "--find-copies-harder"},
			markers: []string{"copy from a", "copy to b"},
		},
		{
			name: "rename among other changes",
			files: map[string]string{"keep": numbered(10), "gone": "g\n", "old/name.go": numbered(40), "x.sh": "echo\n",
				"old/stay": "s\n"},
			change: func(t *testing.T, dir string) {
				edit(t, dir, "keep", "line 5\n", "line five\n")
				gitRun(t, dir, "rm", "-q", "gone")
				mv(t, dir, "old/name.go", "new/name.go")
				edit(t, dir, "new/name.go", "line 20\n", "")
				write(t, dir, "fresh/file", "fresh\n", 0o644)
				if err := os.Chmod(filepath.Join(dir, "x.sh"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			args:    []string{"-M"},
			markers: []string{"rename from old/name.go", "deleted file mode 100644", "new file mode 100644", "new mode 100755"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			gitRun(t, dir, "init", "-q")
			for p, content := range c.files {
				mode := os.FileMode(0o644)
				if strings.HasSuffix(p, "*") {
					p, mode = strings.TrimSuffix(p, "*"), 0o755
				}
				write(t, dir, p, content, mode)
			}
			gitRun(t, dir, "add", "-A")
			gitRun(t, dir, "commit", "-q", "-m", "before")
			before := snapshotTree(t, dir)
			c.change(t, dir)
			gitRun(t, dir, "add", "-A")
			patch := gitRun(t, dir, append([]string{"diff", "--cached"}, c.args...)...)
			for _, m := range c.markers {
				if !strings.Contains(patch, m+"\n") {
					t.Fatalf("git's patch lacks %q:\n%s", m, patch)
				}
			}
			changes, err := Apply(patch, func(p string) ([]byte, bool, error) {
				f, ok := before[p]
				return []byte(f.content), ok, nil
			})
			if err != nil {
				t.Fatalf("%v\n%s", err, patch)
			}
			got := map[string]gitFile{}
			for p, f := range before {
				got[p] = f
			}
			for _, ch := range changes {
				if ch.Deleted {
					delete(got, ch.Path)
					continue
				}
				f := gitFile{content: string(ch.Content)}
				switch {
				case ch.Mode != 0:
					f.exec = ch.Mode&0o100 != 0
				case ch.From != "":
					f.exec = before[ch.From].exec
				default:
					f.exec = before[ch.Path].exec
				}
				got[ch.Path] = f
			}
			if want := snapshotTree(t, dir); showTree(got) != showTree(want) {
				t.Fatalf("patch:\n%s\ngot:\n%s\nwant (git's tree):\n%s", patch, showTree(got), showTree(want))
			}
		})
	}
}
