package patch

import (
	"errors"
	"strings"
	"testing"
)

// TestPatchParsedByGitdiff covers what go-gitdiff reads that the hand
// parser did not, and guards what both read. Each case says which:
// "fixed" cases fail with the hand parser (engine/patch.go before the
// move), "guard" cases pass with both and keep it so.
func TestPatchParsedByGitdiff(t *testing.T) {
	checkApplies(t, []appliesCase{
		{
			// fixed: the hand parser targeted "w/f", which does not exist.
			name:  "diff.mnemonicPrefix names (i/ w/)",
			files: map[string]string{"src/f": "a\n"},
			patch: "diff --git i/src/f w/src/f\nindex 1..2 100644\n--- i/src/f\n+++ w/src/f\n@@ -1 +1 @@\n-a\n+b\n",
			want:  []Change{{Path: "src/f", Content: []byte("b\n")}},
		},
		{
			// fixed: diff -N marks a deleted file with the epoch on its new
			// side; the hand parser emptied the file instead of deleting it.
			name:  "diff -N deletion (epoch timestamp)",
			files: map[string]string{"gone.txt": "g\n"},
			patch: "diff -ruN a/gone.txt b/gone.txt\n--- a/gone.txt\t2024-01-01 00:00:00.000000000 +0000\n+++ b/gone.txt\t1970-01-01 00:00:00.000000000 +0000\n@@ -1 +0,0 @@\n-g\n",
			want:  []Change{{Path: "gone.txt", Deleted: true}},
		},
		{
			// guard: a quoted name with a space, a quote, a backslash and
			// octal UTF-8 escapes, on every header line.
			name:  "quoted path with spaces and escapes",
			files: map[string]string{`sp ace/q"u\o tï`: "a\n"},
			patch: "diff --git \"a/sp ace/q\\\"u\\\\o t\\303\\257\" \"b/sp ace/q\\\"u\\\\o t\\303\\257\"\nindex 1..2 100644\n--- \"a/sp ace/q\\\"u\\\\o t\\303\\257\"\n+++ \"b/sp ace/q\\\"u\\\\o t\\303\\257\"\n@@ -1 +1 @@\n-a\n+b\n",
			want:  []Change{{Path: `sp ace/q"u\o tï`, Content: []byte("b\n")}},
		},
		{
			// guard: git writes a name with a space unquoted, with a tab
			// after it on the ---/+++ lines.
			name:  "unquoted path with spaces",
			files: map[string]string{"my dir/a file.txt": "a\n"},
			patch: "diff --git a/my dir/a file.txt b/my dir/a file.txt\n--- a/my dir/a file.txt\t\n+++ b/my dir/a file.txt\t\n@@ -1 +1 @@\n-a\n+b\n",
			want:  []Change{{Path: "my dir/a file.txt", Content: []byte("b\n")}},
		},
		{
			// guard: markers on both sides; the new file keeps no newline.
			name:  "no newline at end of file, old and new",
			files: map[string]string{"f": "a\nb"},
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
			want:  []Change{{Path: "f", Content: []byte("a\nc")}},
		},
		{
			// guard: a newline added at the end; the marker's wording
			// changes with the locale, only its "\ " start counts.
			name:  "newline added at end of file, localized marker",
			files: map[string]string{"f": "a"},
			patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ Kein Zeilenumbruch am Dateiende.\n+a\n",
			want:  []Change{{Path: "f", Content: []byte("a\n")}},
		},
		{
			// guard: a mode change with no content change, and an index
			// line with the mode, among other sections.
			name:  "mode-only change beside a content change",
			files: map[string]string{"run.sh": "echo\n", "f": "a\n"},
			patch: "diff --git a/run.sh b/run.sh\nold mode 100755\nnew mode 100644\ndiff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
			want:  []Change{{Path: "run.sh", Content: []byte("echo\n"), Mode: 0o644}, {Path: "f", Content: []byte("b\n")}},
		},
		{
			// guard: a rename with a similarity score and hunks, quoted
			// names with spaces on every line.
			name:  "rename with similarity index and quoted names",
			files: map[string]string{"old dir/x\ty": numbered(8)},
			patch: "diff --git \"a/old dir/x\\ty\" \"b/new dir/x y\"\nsimilarity index 87%\nrename from \"old dir/x\\ty\"\nrename to new dir/x y\nindex 1..2 100644\n--- \"a/old dir/x\\ty\"\n+++ b/new dir/x y\t\n@@ -3,3 +3,3 @@\n line 3\n-line 4\n+LINE 4\n line 5\n",
			want: []Change{{Path: "new dir/x y", Content: []byte(strings.Replace(numbered(8), "line 4\n", "LINE 4\n", 1)), From: "old dir/x\ty"},
				{Path: "old dir/x\ty", Deleted: true}},
		},
		{
			// guard: go-gitdiff has dropped git's a/ and b/ already; a path
			// in a directory named a or b keeps it.
			name:  "git path in directories named a and b",
			files: map[string]string{"b/notes.txt": "a\n", "a/x": "x\n"},
			patch: "diff --git a/b/notes.txt b/b/notes.txt\n--- a/b/notes.txt\n+++ b/b/notes.txt\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/a/x b/a/x\ndeleted file mode 100644\n--- a/a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
			want:  []Change{{Path: "b/notes.txt", Content: []byte("b\n")}, {Path: "a/x", Deleted: true}},
		},
		{
			// guard: git diff --no-prefix (diff.noprefix): go-gitdiff alone
			// would drop "src/" as if it were a/.
			name:  "git --no-prefix, file in a directory",
			files: map[string]string{"src/f": "a\n", "f": "a\n"},
			patch: "diff --git src/f src/f\nindex 1..2 100644\n--- src/f\n+++ src/f\n@@ -1 +1 @@\n-a\n+b\n",
			want:  []Change{{Path: "src/f", Content: []byte("b\n")}},
		},
		{
			// guard: --no-prefix mode change at the top level (go-gitdiff
			// alone finds no name in "diff --git run.sh run.sh").
			name:  "git --no-prefix, mode only",
			files: map[string]string{"run.sh": "echo\n"},
			patch: "diff --git run.sh run.sh\nold mode 100644\nnew mode 100755\n",
			want:  []Change{{Path: "run.sh", Content: []byte("echo\n"), Mode: 0o755}},
		},
		{
			// guard: --no-prefix rename with hunks (go-gitdiff alone finds
			// "--- src/x" inconsistent with "rename from src/x").
			name:  "git --no-prefix, rename with hunks",
			files: map[string]string{"src/x": numbered(5)},
			patch: "diff --git src/x lib/x\nsimilarity index 80%\nrename from src/x\nrename to lib/x\n--- src/x\n+++ lib/x\n@@ -2 +2 @@\n-line 2\n+two\n",
			want: []Change{{Path: "lib/x", Content: []byte(strings.Replace(numbered(5), "line 2\n", "two\n", 1)), From: "src/x"},
				{Path: "src/x", Deleted: true}},
		},
		{
			// guard: an empty context line of a CRLF file whose leading
			// space an editor trimmed.
			name:  "blank CRLF context line without its space",
			files: map[string]string{"w": "a\r\n\r\nb\r\n"},
			patch: "--- a/w\n+++ b/w\n@@ -1,3 +1,3 @@\n a\r\n\r\n-b\r\n+c\r\n",
			want:  []Change{{Path: "w", Content: []byte("a\r\n\r\nc\r\n")}},
		},
		{
			// guard: a patch converted to CRLF whole, headers included, for a
			// CRLF file; the file's last line has no newline.
			name:  "whole patch in CRLF",
			files: map[string]string{"w.txt": "a\r\nb\r\nc\r"},
			patch: strings.ReplaceAll("diff --git a/w.txt b/w.txt\nindex 1..2 100644\n--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\\ No newline at end of file\n", "\n", "\r\n"),
			want:  []Change{{Path: "w.txt", Content: []byte("a\r\nB\r\nc\r")}},
		},
		{
			// guard: git format-patch mail: headers, a diffstat, and the
			// "-- " signature after the last hunk.
			name:  "format-patch mail",
			files: map[string]string{"f": "a\n"},
			patch: "From 1234 Mon Sep 17 00:00:00 2001\nFrom: A <a@example.com>\nSubject: [PATCH] fix\n\n---\n f | 2 +-\n 1 file changed\n\ndiff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n\n",
			want:  []Change{{Path: "f", Content: []byte("b\n")}},
		},
	})
}

func TestPatchRefusedByGitdiff(t *testing.T) {
	checkRefused(t, []refusedCase{
		// fixed: the hand parser took the stray hunk for text outside any
		// file and applied the first hunk alone.
		{"hunk without a file header", map[string]string{"f": numbered(10)},
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-line 1\n+one\nnote\n@@ -5 +5 @@\n-line 5\n+five\n",
			`patch line 7 "@@ -5 +5 @@": patch fragment without file header`},
		// guard: a real git binary patch, refused naming the file.
		{"git binary patch", map[string]string{"img.bin": "a\x00b"},
			"diff --git a/img.bin b/img.bin\nindex 20b5be9..57e6c15 100644\nGIT binary patch\nliteral 5\nMcmYdfNM=X@00VacDF6Tf\n\nliteral 3\nKcmYdfNCE%>hycU@\n\n",
			"patch changes binary file img.bin: not supported, use an edit with content_base64"},
		// fixed: diff -ru's notice of a binary file outside any git section
		// was taken for text between files and the change dropped.
		{"diff -r binary notice", map[string]string{"f": "a\n"},
			"diff -ru a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nBinary files a/img.png and b/img.png differ\n",
			"patch changes binary file img.png: not supported"},
		// guard: a new binary file without data, after a text section.
		{"new binary file without data", map[string]string{"f": "a\n"},
			"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..1111111\nBinary files /dev/null and b/logo.png differ\n",
			"patch changes binary file logo.png: not supported"},
		// guard: a file turned into a symlink (mode-only section); the
		// hand parser refused it too, in other words.
		{"mode change to a symlink", map[string]string{"l": "x\n"},
			"diff --git a/l b/l\nold mode 100644\nnew mode 120000\n", "mode 120000 of l: only regular files"},
		// guard: the error counts lines in the whole patch, not in the
		// section it was read from (the hand parser said "b hunk 1").
		{"line counted in the whole patch", map[string]string{"a": "a\n", "b": "b\n"},
			"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+A\ndiff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-b\n?B\n",
			`patch line 12 "?B" (section "diff --git a/b b/b"): invalid line operation`},
	})
}

// TestPatchErrorsAreTyped: a caller can tell a patch it cannot read from
// one that does not fit the files.
func TestPatchErrorsAreTyped(t *testing.T) {
	_, err := Apply("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n", fakeFS(map[string]string{"f": "a\nb\n"}))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || se.Text != "@@ -1,2 +1,2 @@" {
		t.Fatalf("err = %#v, want a *SyntaxError at line 3", err)
	}
	_, err = Apply("--- a/f\n+++ b/f\n@@ -4 +4 @@\n-x\n+y\n", fakeFS(map[string]string{"f": "a\nb\n"}))
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.File != "f" || ce.Hunk != 1 || ce.Line != 4 {
		t.Fatalf("err = %#v, want a *ConflictError for f hunk 1 at line 4", err)
	}
}
