package patch

import "testing"

// FuzzApply: a patch comes from an agent or a person, so no text may make
// Apply panic; whatever it returns, a change's path is one the patch named.
// go test -fuzz FuzzApply -fuzztime 60s ./internal/patch
func FuzzApply(f *testing.F) {
	for _, s := range []string{
		"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n",
		"diff --git a/a b/b\nsimilarity index 90%\nrename from a\nrename to b\n--- a/a\n+++ b/b\n@@ -1 +1 @@\n-a\n+b\n",
		"diff --git src/f src/f\nold mode 100644\nnew mode 100755\n",
		"--- a/f\t1970-01-01 00:00:00.000000000 +0000\n+++ b/f\n@@ -0,0 +1 @@\n+x\n",
		"diff --git a/img b/img\nGIT binary patch\nliteral 5\nMcmYdfNM=X@00VacDF6Tf\n\nliteral 3\nKcmYdfNCE%>hycU@\n\n",
		"--- a/w\r\n+++ b/w\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n",
	} {
		f.Add(s)
	}
	files := map[string]string{"f": "a\nb", "a": "a\n", "src/f": "x\n", "w": "a\r\n"}
	f.Fuzz(func(t *testing.T, text string) {
		changes, err := Apply(text, fakeFS(files))
		if err != nil {
			return
		}
		for _, c := range changes {
			if c.Path == "" {
				t.Fatalf("a change without a path from %q", text)
			}
		}
	})
}
