package scan

import (
	"os"
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
	for b.Loop() {
		Scan(File{Path: "dataclasses.py", Content: src, Added: added})
	}
}
