package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/shadow-dev/shadow/engine/report"
)

// makeTree lays out a workspace: a key ending in "/" is a directory, a value
// starting with "@" a symlink to the rest, anything else a 0644 file.
func makeTree(t *testing.T, tree map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	keys := make([]string, 0, len(tree))
	for k := range tree {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := filepath.Join(ws, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		v := tree[k]
		var err error
		switch {
		case strings.HasSuffix(k, "/"):
			err = os.MkdirAll(p, 0o755)
		case strings.HasPrefix(v, "@"):
			err = os.Symlink(v[1:], p)
		default:
			err = os.WriteFile(p, []byte(v), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// load writes doc as spec.json in a fresh spec directory (with a source
// file hyp/plus.rs and a directory hyp/dir) and loads and resolves it.
func load(t *testing.T, doc, ws string, bases BaseResolver) ([]Hypothesis, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hyp", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hyp", "plus.rs"), []byte("a + b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, specDir, err := LoadSpec(path, nil)
	if err != nil {
		return nil, err
	}
	if specDir != dir {
		t.Fatalf("specDir = %q, want %q", specDir, dir)
	}
	return Resolve(spec, specDir, ws, bases)
}

// one wraps a hypothesis object in a spec.
func one(hyp string) string { return `{"hypotheses":[` + hyp + `]}` }

func TestSpecRefusals(t *testing.T) {
	calc := "def add(a, b):\n    return a - b\n"
	tree := map[string]string{
		"calc.py": calc, "src/lib.rs": "a - b\n", "dir/": "", "dir/in.txt": "x",
		"real/": "", "link": "@real", "file": "x", ".git/": "", ".git/config": "",
	}
	refused := []struct {
		name, doc, hyp, field, msg string
	}{
		// Decoding.
		{"invalid json", `{"hypotheses":`, "", "", "invalid JSON"},
		{"unknown top field", `{"hypotheses":[{"name":"a"}],"colour":1}`, "", "colour", "unknown field"},
		{"unknown edit field", one(`{"name":"plus","edits":[{"path":"a","content":"x","colour":1}]}`), "plus", "edits[0].colour", "unknown field"},
		{"unknown field before name", one(`{"nmae":"x","name":"plus"}`), "plus", "nmae", "unknown field"},
		{"key in wrong case", one(`{"Name":"plus"}`), "", "hypotheses[0].Name", "unknown field"},
		{"typo of edits", one(`{"name":"plus","edit":[]}`), "plus", "edit", `unknown field: did you mean "edits"?`},
		{"typo of hypotheses", `{"hypothesis":[{"name":"a"}]}`, "", "hypothesis", `unknown field: did you mean "hypotheses"?`},
		{"no field near", `{"hypotheses":[{"name":"a"}],"colour":1}`, "", "colour", "unknown field (the fields are: $schema, hypotheses, command"},
		{"repeated key", one(`{"name":"a","name":"b"}`), "b", "name", "given twice"},
		{"trailing data", one(`{"name":"a"}`) + ` {}`, "", "", "trailing data"},
		{"string for int", `{"hypotheses":[{"name":"a"}],"jobs":"4"}`, "", "jobs", "must be an integer"},
		{"fraction for int", `{"hypotheses":[{"name":"a"}],"jobs":1.5}`, "", "jobs", "must be an integer"},
		{"object for array", `{"hypotheses":{}}`, "", "hypotheses", "must be an array"},
		{"number for string", one(`{"name":"a","delete":[1]}`), "a", "delete[0]", "must be a string"},
		// Names.
		{"no hypotheses", `{"hypotheses":[]}`, "", "hypotheses", "no hypotheses"},
		{"no hypotheses field", `{}`, "", "hypotheses", "no hypotheses"},
		{"empty name", one(`{"name":""}`), "", "hypotheses[0].name", "name is empty"},
		{"duplicate name", `{"hypotheses":[{"name":"a"},{"name":"a"}]}`, "a", "name", "duplicate name"},
		{"names differing in case", `{"hypotheses":[{"name":"Plus"},{"name":"b"},{"name":"plus"}]}`, "plus", "name", `duplicate name (hypotheses[0] "Plus" and [2] differ only in case)`},
		{"space in name", one(`{"name":"a b"}`), "a b", "name", "1-64 of"},
		{"slash in name", one(`{"name":"a/b"}`), "a/b", "name", "1-64 of"},
		{"long name", one(`{"name":"` + strings.Repeat("x", 65) + `"}`), strings.Repeat("x", 65), "name", "1-64 of"},
		{"dotdot name", one(`{"name":".."}`), "..", "name", "not . or .."},
		// Path syntax.
		{"absolute", one(`{"name":"plus","edits":[{"path":"/etc/passwd","content":""}]}`), "plus", "edits[0].path", "absolute paths are not allowed"},
		{"dotdot", one(`{"name":"p","edits":[{"path":"a/../../x","content":""}]}`), "p", "edits[0].path", "'..' components"},
		{"empty path", one(`{"name":"p","edits":[{"path":"","content":""}]}`), "p", "edits[0].path", "path is empty"},
		{"double slash", one(`{"name":"p","edits":[{"path":"a//b","content":""}]}`), "p", "edits[0].path", "empty component"},
		{"trailing slash", one(`{"name":"p","edits":[{"path":"a/","content":""}]}`), "p", "edits[0].path", "trailing slash"},
		{"dot component", one(`{"name":"p","edits":[{"path":"./a","content":""}]}`), "p", "edits[0].path", "'.' component"},
		{"control char", one(`{"name":"p","edits":[{"path":"a\u0001b","content":""}]}`), "p", "edits[0].path", "control character"},
		{"newline", one(`{"name":"p","delete":["a\nb"]}`), "p", "delete[0]", "control character"},
		{"into .git", one(`{"name":"p","edits":[{"path":".git/config","content":""}]}`), "p", "edits[0].path", "into .git"},
		{".git itself", one(`{"name":"p","delete":[".git"]}`), "p", "delete[0]", "into .git"},
		{"backslash", one(`{"name":"p","edits":[{"path":"src\\lib.rs","content":""}]}`), "p", "edits[0].path", `backslash in path "src\\lib.rs": use / to separate components`},
		{"backslash in delete", one(`{"name":"p","delete":["tests\\old.py"]}`), "p", "delete[0]", "use / to separate components"},
		{"backslash in file", one(`{"name":"p","edits":[{"path":"a","file":"hyp\\plus.rs"}]}`), "p", "edits[0].file", "use / to separate components"},
		{"nested .GIT", one(`{"name":"p","edits":[{"path":"sub/.GIT/x","content":""}]}`), "p", "edits[0].path", "into .git"},
		// Edit sources and modes.
		{"no source", one(`{"name":"p","edits":[{"path":"a"}]}`), "p", "edits[0]", "exactly one of file, content, content_base64 (0 given)"},
		{"two sources", one(`{"name":"p","edits":[{"path":"a","content":"","content_base64":""}]}`), "p", "edits[0]", "(2 given)"},
		{"bad base64", one(`{"name":"p","edits":[{"path":"a","content_base64":"!!!"}]}`), "p", "edits[0].content_base64", "invalid base64"},
		{"mode 0o755", one(`{"name":"p","edits":[{"path":"a","content":"","mode":"0o755"}]}`), "p", "edits[0].mode", "not an octal permission"},
		{"setuid mode", one(`{"name":"p","edits":[{"path":"a","content":"","mode":"4755"}]}`), "p", "edits[0].mode", "not an octal permission"},
		{"mode 9", one(`{"name":"p","edits":[{"path":"a","content":"","mode":"9"}]}`), "p", "edits[0].mode", "not an octal permission"},
		{"missing file", one(`{"name":"p","edits":[{"path":"a","file":"hyp/nope.rs"}]}`), "p", "edits[0].file", "cannot read hyp/nope.rs: no such file"},
		{"file is a dir", one(`{"name":"p","edits":[{"path":"a","file":"hyp/dir"}]}`), "p", "edits[0].file", "is a directory"},
		// Overlaps.
		{"same path twice", one(`{"name":"p","edits":[{"path":"a","content":""},{"path":"a","content":""}]}`), "p", "edits[1].path", `"a" is also proposed by edits[0].path`},
		{"edit and delete", one(`{"name":"p","edits":[{"path":"calc.py","content":""}],"delete":["calc.py"]}`), "p", "delete[0]", "also proposed by edits[0].path"},
		{"inside another", one(`{"name":"p","edits":[{"path":"a/b","content":""},{"path":"a","content":""}]}`), "p", "edits[0].path", `"a/b" is inside "a", proposed by edits[1].path`},
		{"inside a delete", one(`{"name":"p","edits":[{"path":"dir/new","content":""}],"delete":["dir"]}`), "p", "edits[0].path", "is inside \"dir\", proposed by delete[0]"},
		{"patch and edit", one(`{"name":"p","edits":[{"path":"calc.py","content":""}],"patch":"--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-def add(a, b):\n+def add(x, y):\n"}`), "p", "patch (calc.py)", "also proposed by edits[0].path"},
		// The checkout.
		{"parent symlink", one(`{"name":"p","edits":[{"path":"link/x","content":""}]}`), "p", "edits[0].path", `parent "link" is a symlink`},
		{"parent file", one(`{"name":"p","edits":[{"path":"file/x/y","content":""}]}`), "p", "edits[0].path", `parent "file" is not a directory`},
		{"delete under symlink", one(`{"name":"p","delete":["link/x"]}`), "p", "delete[0]", "is a symlink"},
		{"target dir", one(`{"name":"p","edits":[{"path":"dir","content":""}]}`), "p", "edits[0].path", `"dir" is a directory`},
		{"delete missing", one(`{"name":"p","delete":["nope.txt"]}`), "p", "delete[0]", `"nope.txt" does not exist`},
		// Patches.
		{"patch does not apply", one(`{"name":"p","patch":"--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a * b\n+    return a + b\n"}`), "p", "patch", "patch does not apply: calc.py hunk 1 at line 1"},
		{"patch target dir", one(`{"name":"p","patch":"--- a/dir\n+++ b/dir\n@@ -1 +1 @@\n-x\n+y\n"}`), "p", "patch", "dir: is a directory"},
		{"patch into .git", one(`{"name":"p","patch":"--- /dev/null\n+++ b/.git/hooks/x\n@@ -0,0 +1 @@\n+x\n"}`), "p", "patch", "into .git"},
		{"patch absolute", one(`{"name":"p","patch":"--- /dev/null\n+++ /tmp/x\n@@ -0,0 +1 @@\n+x\n"}`), "p", "patch", "absolute paths"},
		{"patch via symlink", one(`{"name":"p","patch":"--- /dev/null\n+++ b/link/x\n@@ -0,0 +1 @@\n+x\n"}`), "p", "patch", "is a symlink"},
		{"rename source missing", one(`{"name":"p","patch":"diff --git a/nope.py b/new.py\nsimilarity index 100%\nrename from nope.py\nrename to new.py\n"}`), "p", "patch", "patch renames nope.py, but it does not exist"},
		{"rename onto a directory", one(`{"name":"p","patch":"diff --git a/calc.py b/dir\nsimilarity index 100%\nrename from calc.py\nrename to dir\n"}`), "p", "patch", "dir: is a directory"},
		{"rename onto a file", one(`{"name":"p","patch":"diff --git a/calc.py b/file\nsimilarity index 100%\nrename from calc.py\nrename to file\n"}`), "p", "patch", "patch renames calc.py to file, but file already exists"},
		{"rename into .git", one(`{"name":"p","patch":"diff --git a/calc.py b/.git/hooks/pre-commit\nsimilarity index 100%\nrename from calc.py\nrename to .git/hooks/pre-commit\n"}`), "p", "patch", "paths into .git are not allowed"},
		{"rename out of .git", one(`{"name":"p","patch":"diff --git a/.git/config b/config\nsimilarity index 100%\nrename from .git/config\nrename to config\n"}`), "p", "patch", "paths into .git are not allowed"},
		{"copy out of .git", one(`{"name":"p","patch":"diff --git a/.git/config b/config\nsimilarity index 100%\ncopy from .git/config\ncopy to config\n"}`), "p", "patch", "paths into .git are not allowed"},
		{"rename via symlink", one(`{"name":"p","patch":"diff --git a/calc.py b/link/x\nsimilarity index 100%\nrename from calc.py\nrename to link/x\n"}`), "p", "patch", `parent "link" is a symlink`},
		{"rename source also edited", one(`{"name":"p","edits":[{"path":"calc.py","content":""}],"patch":"diff --git a/calc.py b/new.py\nsimilarity index 100%\nrename from calc.py\nrename to new.py\n"}`), "p", "patch (calc.py)", "also proposed by edits[0].path"},
		{"rename target also edited", one(`{"name":"p","edits":[{"path":"new.py","content":""}],"patch":"diff --git a/calc.py b/new.py\nsimilarity index 100%\nrename from calc.py\nrename to new.py\n"}`), "p", "patch (new.py)", "also proposed by edits[0].path"},
		{"rename source also deleted", one(`{"name":"p","delete":["calc.py"],"patch":"diff --git a/calc.py b/new.py\nsimilarity index 100%\nrename from calc.py\nrename to new.py\n"}`), "p", "patch (calc.py)", "also proposed by delete[0]"},
		{"patch nothing", one(`{"name":"p","patch":"hello"}`), "p", "patch", "no file diff"},
		// Bases.
		{"base without resolver", one(`{"name":"next","base":"@last/plus"}`), "next", "base", "base is not supported yet"},
		// Settings.
		{"timeout not duration", `{"hypotheses":[{"name":"a"}],"timeout":"5"}`, "", "timeout", "not a duration"},
		{"timeout zero", `{"hypotheses":[{"name":"a"}],"timeout":"0s"}`, "", "timeout", "must be positive"},
		{"timeout negative", `{"hypotheses":[{"name":"a"}],"timeout":"-1m"}`, "", "timeout", "must be positive"},
		{"jobs negative", `{"hypotheses":[{"name":"a"}],"jobs":-1}`, "", "jobs", "0 (one per CPU) or more"},
		{"net", `{"hypotheses":[{"name":"a"}],"net":"none"}`, "", "net", "private, isolated or host"},
		{"tmp", `{"hypotheses":[{"name":"a"}],"tmp":"tmpfs"}`, "", "tmp", "shared or private"},
		{"empty command element", `{"hypotheses":[{"name":"a"}],"command":["pytest",""]}`, "", "command[1]", "empty command element"},
		{"env empty key", `{"hypotheses":[{"name":"a"}],"env":{"":"x"}}`, "", "env", "empty variable name"},
		{"env key with =", `{"hypotheses":[{"name":"a"}],"env":{"A=B":"x"}}`, "", "env", "'=' or NUL"},
		{"env key with NUL", `{"hypotheses":[{"name":"a"}],"env":{"A\u0000":"x"}}`, "", "env", "'=' or NUL"},
		{"junit absolute", `{"hypotheses":[{"name":"a"}],"junit":"/tmp/report.xml"}`, "", "junit", "relative to the command's directory"},
		{"junit dotdot", `{"hypotheses":[{"name":"a"}],"junit":"build/../../report.xml"}`, "", "junit", "'..' components are not allowed"},
		{"junit backslash", `{"hypotheses":[{"name":"a"}],"junit":"build\\report.xml"}`, "", "junit", "use / to separate components"},
		{"env repeated key", `{"hypotheses":[{"name":"a"}],"env":{"A":"x","A":"y"}}`, "", "env.A", "given twice"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			ws := makeTree(t, tree)
			hyps, err := load(t, c.doc, ws, nil)
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), hyps %+v; want a *SpecError", err, err, hyps)
			}
			if se.Hyp != c.hyp || se.Field != c.field || !strings.Contains(se.Msg, c.msg) {
				t.Fatalf("got Hyp=%q Field=%q Msg=%q\nwant Hyp=%q Field=%q Msg containing %q", se.Hyp, se.Field, se.Msg, c.hyp, c.field, c.msg)
			}
		})
	}
}

func TestSpecErrorText(t *testing.T) {
	cases := map[string]*SpecError{
		`hypothesis "plus": edits[0].path: absolute paths are not allowed`: {Hyp: "plus", Field: "edits[0].path", Msg: "absolute paths are not allowed"},
		`timeout: must be positive, got 0s`:                                {Field: "timeout", Msg: "must be positive, got 0s"},
		`trailing data after the spec at offset 9`:                         {Msg: "trailing data after the spec at offset 9"},
	}
	for want, e := range cases {
		if e.Error() != want {
			t.Errorf("Error() = %q, want %q", e.Error(), want)
		}
	}
}

// treeState records every entry's type, mode, content or link target so a
// test can show Resolve wrote nothing.
func treeState(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d", p, fi.Mode(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", c)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestResolve(t *testing.T) {
	ws := makeTree(t, map[string]string{
		"calc.py":      "def add(a, b):\n    return a - b\n",
		"src/lib.rs":   "a - b\n",
		"run.sh":       "echo hi\n",
		"secret.txt":   "one\ntwo\n",
		"same.txt":     "same\n",
		"old/":         "",
		"old/a.txt":    "a",
		"tests/old.py": "x",
		"link":         "@calc.py",
	})
	if err := os.Chmod(filepath.Join(ws, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(ws, "secret.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := `{"hypotheses":[
	  {"name":"baseline"},
	  {"name":"plus","edits":[{"path":"src/lib.rs","file":"hyp/plus.rs"}]},
	  {"name":"inline","edits":[
	      {"path":"z/new.py","content":"new\n"},
	      {"path":"calc.py","content":"def add(a, b):\n    return a + b\n"},
	      {"path":"run.sh","content":"echo ho\n"},
	      {"path":"same.txt","content":"same\n"},
	      {"path":"link","content":"not a link\n"}]},
	  {"name":"bin","edits":[{"path":"data/x.bin","content_base64":"AAEC","mode":"0755"},{"path":"run.sh","content":"x","mode":"600"},{"path":"raw","content_base64":"AAE"}]},
	  {"name":"gone","delete":["tests/old.py","old"]},
	  {"name":"moved","patch":"diff --git a/run.sh b/bin/run.sh\nsimilarity index 50%\nrename from run.sh\nrename to bin/run.sh\n--- a/run.sh\n+++ b/bin/run.sh\n@@ -1 +1 @@\n-echo hi\n+echo moved\ndiff --git a/secret.txt b/copy.txt\nsimilarity index 100%\ncopy from secret.txt\ncopy to copy.txt\ndiff --git a/same.txt b/x.sh\nold mode 100644\nnew mode 100755\nsimilarity index 100%\nrename from same.txt\nrename to x.sh\n"},
	  {"name":"patched","patch":"diff --git a/secret.txt b/secret.txt\n--- a/secret.txt\n+++ b/secret.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1 @@\n+made\n--- a/same.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-same\n"}
	],"command":["pytest","-q"],"timeout":"5m","jobs":4,"env":{"KEY":"VALUE"},"net":"isolated","tmp":"private","junit":"build/report.xml"}`
	before := treeState(t, ws)
	hyps, err := load(t, doc, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after := treeState(t, ws); after != before {
		t.Fatalf("Resolve changed the workspace:\n%s\n---\n%s", before, after)
	}
	f := func(p, c string, m os.FileMode) File { return File{Path: p, Content: []byte(c), Mode: m} }
	want := []Hypothesis{
		{Name: "baseline"},
		{Name: "plus", Files: []File{f("src/lib.rs", "a + b\n", 0o644)}},
		{Name: "inline", Files: []File{
			f("calc.py", "def add(a, b):\n    return a + b\n", 0o644),
			f("link", "not a link\n", 0o644),
			f("run.sh", "echo ho\n", 0o755), // mode kept
			f("same.txt", "same\n", 0o644),  // unchanged content still counts
			f("z/new.py", "new\n", 0o644),
		}},
		{Name: "bin", Files: []File{f("data/x.bin", "\x00\x01\x02", 0o755), f("raw", "\x00\x01", 0o644), f("run.sh", "x", 0o600)}},
		{Name: "gone", Deletes: []string{"old", "tests/old.py"}},
		{Name: "moved", Files: []File{f("bin/run.sh", "echo moved\n", 0o755), f("copy.txt", "one\ntwo\n", 0o600), f("x.sh", "same\n", 0o755)},
			Deletes: []string{"run.sh", "same.txt"}},
		{Name: "patched", Files: []File{f("made.txt", "made\n", 0o644), f("secret.txt", "one\nTWO\n", 0o600)}, Deletes: []string{"same.txt"}},
	}
	if !reflect.DeepEqual(hyps, want) {
		t.Fatalf("got\n%s\nwant\n%s", showHyps(hyps), showHyps(want))
	}
	if !hyps[0].IsBaseline() || hyps[1].IsBaseline() {
		t.Fatal("IsBaseline")
	}
}

func showHyps(hs []Hypothesis) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s deletes=%q\n", h.Name, h.Deletes)
		for _, f := range h.Files {
			fmt.Fprintf(&b, "  %s %o %q\n", f.Path, f.Mode, f.Content)
		}
	}
	return b.String()
}

func TestResolveBase(t *testing.T) {
	ws := makeTree(t, map[string]string{
		"calc.py":  "def add(a, b):\n    return a - b\n",
		"keep.py":  "k\n",
		"dir/":     "",
		"olddir/f": "f",
	})
	recorded := map[string]struct {
		files   []File
		deletes []string
	}{
		"run1/plus": {
			files: []File{
				{Path: "calc.py", Content: []byte("def add(a, b):\n    return a + b\n"), Mode: 0o600},
				{Path: "helper.py", Content: []byte("h\n"), Mode: 0o644},
				{Path: "gen/out.txt", Content: []byte("o\n"), Mode: 0o644},
			},
			deletes: []string{"keep.py", "vanished.py", "olddir"},
		},
		"run1/bad": {files: []File{{Path: "dir", Content: []byte("x"), Mode: 0o644}}},
	}
	bases := func(ref string) ([]File, []string, error) {
		r, ok := recorded[ref]
		if !ok {
			return nil, nil, fmt.Errorf("no recorded hypothesis %s", ref)
		}
		return r.files, r.deletes, nil
	}
	doc := `{"hypotheses":[
	  {"name":"same","base":"run1/plus"},
	  {"name":"moved","base":"run1/plus","patch":"diff --git a/calc.py b/lib/calc.py\nsimilarity index 100%\nrename from calc.py\nrename to lib/calc.py\ndiff --git a/helper.py b/helper2.py\nsimilarity index 100%\nrename from helper.py\nrename to helper2.py\n"},
	  {"name":"next","base":"run1/plus",
	   "patch":"--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,3 @@\n def add(a, b):\n     return a + b\n+# reviewed\n",
	   "edits":[{"path":"keep.py","content":"back\n"}],
	   "delete":["helper.py","gen"]}
	]}`
	hyps, err := load(t, doc, ws, bases)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hypothesis{
		{Name: "same", Files: []File{
			{Path: "calc.py", Content: []byte("def add(a, b):\n    return a + b\n"), Mode: 0o600},
			{Path: "gen/out.txt", Content: []byte("o\n"), Mode: 0o644},
			{Path: "helper.py", Content: []byte("h\n"), Mode: 0o644},
		}, Deletes: []string{"keep.py", "olddir"}}, // vanished.py is gone from the checkout: dropped
		{Name: "moved", Files: []File{ // the base's modes; helper.py was only in the base
			{Path: "gen/out.txt", Content: []byte("o\n"), Mode: 0o644},
			{Path: "helper2.py", Content: []byte("h\n"), Mode: 0o644},
			{Path: "lib/calc.py", Content: []byte("def add(a, b):\n    return a + b\n"), Mode: 0o600},
		}, Deletes: []string{"calc.py", "keep.py", "olddir"}},
		{Name: "next", Files: []File{
			{Path: "calc.py", Content: []byte("def add(a, b):\n    return a + b\n# reviewed\n"), Mode: 0o600},
			{Path: "keep.py", Content: []byte("back\n"), Mode: 0o644},
		}, Deletes: []string{"olddir"}},
	}
	if !reflect.DeepEqual(hyps, want) {
		t.Fatalf("got\n%s\nwant\n%s", showHyps(hyps), showHyps(want))
	}

	for doc, want := range map[string]string{
		one(`{"name":"x","base":"run9/nope"}`):                                                               `hypothesis "x": base: no recorded hypothesis run9/nope`,
		one(`{"name":"x","base":"run1/bad"}`):                                                                `hypothesis "x": base: "dir" is a directory`,
		one(`{"name":"x","base":"run1/plus","edits":[{"path":"keep.py/x","content":""}]}`):                   `hypothesis "x": edits[0].path: parent "keep.py" is not a directory`,
		one(`{"name":"x","base":"run1/plus","edits":[{"path":"helper.py/x","content":""}]}`):                 `hypothesis "x": edits[0].path: parent "helper.py" is a file in the base`,
		one(`{"name":"x","base":"run1/plus","edits":[{"path":"gen","content":""}]}`):                         `hypothesis "x": edits[0].path: "gen" is a directory in the base (it holds "gen/out.txt")`,
		one(`{"name":"x","base":"run1/plus","edits":[{"path":"olddir/new","content":""}]}`):                  `hypothesis "x": edits[0].path: "olddir/new" is inside "olddir", which the base deletes`,
		one(`{"name":"x","base":"run1/plus","delete":["keep.py"]}`):                                          `hypothesis "x": delete[0]: "keep.py" does not exist (the base deletes "keep.py")`,
		one(`{"name":"x","base":"run1/plus","patch":"--- a/keep.py\n+++ b/keep.py\n@@ -1 +1 @@\n-k\n+j\n"}`): `hypothesis "x": patch: patch changes keep.py, but it does not exist`,
	} {
		_, err := load(t, doc, ws, bases)
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", doc, err, want)
		}
	}
}

func TestLoadSpecStdin(t *testing.T) {
	spec, dir, err := LoadSpec("-", strings.NewReader(`{"hypotheses":[{"name":"baseline"}],"command":["go","test"]}`))
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if dir != wd || len(spec.Hypotheses) != 1 || spec.Command[1] != "test" {
		t.Fatalf("spec %+v dir %q", spec, dir)
	}
	if _, _, err := LoadSpec(filepath.Join(t.TempDir(), "none.json"), nil); err == nil || !strings.Contains(err.Error(), "cannot read spec") {
		t.Fatalf("missing spec file: %v", err)
	}
}

// TestLoadSpecTestdata loads the sample spec of docs/spec.md from testdata,
// with its "file" source relative to the spec's directory.
func TestLoadSpecTestdata(t *testing.T) {
	spec, dir, err := LoadSpec(filepath.Join("testdata", "spec", "sample.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := makeTree(t, map[string]string{
		"src/lib.rs":        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
		"calc.py":           "def add(a, b):\n    return a - b\n",
		"tests/test_old.py": "",
	})
	hyps, err := Resolve(spec, dir, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, h := range hyps {
		got = append(got, fmt.Sprintf("%s:%d/%d", h.Name, len(h.Files), len(h.Deletes)))
	}
	if strings.Join(got, " ") != "baseline:0/0 plus:1/0 inline:1/0 bin:1/0 gone:0/1 patched:1/0" {
		t.Fatalf("got %v", got)
	}
	diff, changed := report.UnifiedDiff("src/lib.rs", []byte("pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"), true, hyps[1].Files[0].Content, true)
	if changed != 2 || !strings.Contains(diff, "+    a + b\n") {
		t.Fatalf("diff %q", diff)
	}
}

func TestSpecRemoteNodesAsNamesOrObjects(t *testing.T) {
	s, err := DecodeSpec([]byte(`{"hypotheses":[{"name":"a"}],"remote":["n1",{"node":"n2","jobs":4}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Remote) != 2 || s.Remote[0] != (RemoteNode{Node: "n1"}) || s.Remote[1] != (RemoteNode{Node: "n2", Jobs: 4}) {
		t.Fatalf("remote = %+v", s.Remote)
	}
	for _, bad := range []string{`{"node":"n","cpus":2}`, `3`, `{"node":"n","jobs":-1}`} {
		if _, err := DecodeSpec([]byte(`{"hypotheses":[{"name":"a"}],"remote":[` + bad + `]}`)); err == nil {
			t.Errorf("remote entry %s accepted", bad)
		}
	}
}

func TestCheckGlobRefusals(t *testing.T) {
	for _, bad := range []string{"", "/abs/**", "a\\b", "[x"} {
		if checkGlob(bad) == "" {
			t.Errorf("glob %q accepted", bad)
		}
	}
}
