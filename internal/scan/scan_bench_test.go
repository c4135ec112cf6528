package scan

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The scan's cost on a large file every line of which a candidate added
// (CPython's dataclasses.py, 1,500 lines): what a candidate rewriting a
// module costs before any sandbox starts.
func BenchmarkScanWholeFile(b *testing.B) {
	src, err := os.ReadFile("testdata/legit/dataclasses.py")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Scan(File{Path: "dataclasses.py", Content: src})
	}
}

// The usual case: a few added lines in the same file.
func BenchmarkScanFewAddedLines(b *testing.B) {
	src, err := os.ReadFile("testdata/legit/dataclasses.py")
	if err != nil {
		b.Fatal(err)
	}
	added := map[int]bool{100: true, 101: true, 102: true}
	for _, table := range []bool{true, false} {
		name := "classes"
		if table {
			name = "table"
		}
		b.Run(name, func(b *testing.B) {
			tableOnly = table
			defer func() { tableOnly = false }()
			for b.Loop() {
				Scan(File{Path: "dataclasses.py", Content: src, Added: added, Orig: src})
			}
		})
	}
}

// The scan's cost on a real project's whole source, every file as if a
// candidate had added it (the worst case: a candidate rewriting them all):
// the table alone (the scan before the introspection classes) against the
// table with the classes, alternating. The project is SHADOW_SCAN_CORPUS's
// subdirectories, or testdata/legit (real projects' files) without it.
func BenchmarkScanRealProject(b *testing.B) {
	type file struct {
		path string
		src  []byte
	}
	var files []file
	var size int64
	add := func(p string, src []byte) {
		files = append(files, file{p, src})
		size += int64(len(src))
	}
	if dir := os.Getenv("SHADOW_SCAN_CORPUS"); dir != "" {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			if LangOf(rel) == "" || corpusTestFile.MatchString(rel) {
				return nil
			}
			src, err := os.ReadFile(p)
			if err == nil {
				add(rel, src)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	} else {
		ps, _ := filepath.Glob("testdata/legit/*")
		for _, p := range ps {
			src, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			add(strings.TrimSuffix(filepath.Base(p), ".txt"), src)
		}
	}
	for _, mode := range []struct {
		name  string
		table bool
	}{{"table", true}, {"classes", false}} {
		b.Run(mode.name, func(b *testing.B) {
			tableOnly = mode.table
			defer func() { tableOnly = false }()
			b.SetBytes(size)
			for b.Loop() {
				for _, f := range files {
					Scan(File{Path: f.path, Content: f.src})
				}
			}
		})
	}
}
