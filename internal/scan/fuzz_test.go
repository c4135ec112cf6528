package scan

import (
	"os"
	"path/filepath"
	"testing"
)

// The scan reads whatever a candidate wrote: no input may crash it (a
// panic would end the judge's run for every candidate). Seeds: every
// cheat and look-alike of the tests, and the real projects' files.
func FuzzScan(f *testing.F) {
	for _, c := range askCheats {
		f.Add(c.path, c.code)
	}
	for _, c := range askLegit {
		f.Add(c.path, c.code)
	}
	ps, _ := filepath.Glob("testdata/legit/*")
	for _, p := range ps {
		if b, err := os.ReadFile(p); err == nil && len(b) < 20000 {
			f.Add(filepath.Base(p), string(b))
		}
	}
	for _, p := range []string{"a.py", "a.js", "a.ts", "a.go"} {
		for _, s := range []string{"{", "(", "[", "`${", "f'{", "'''", "\"\"\"", "def __eq__(", "equals(", "import", "from x import", "getattr(", "/", "`", "\\"} {
			f.Add(p, s)
		}
	}
	f.Fuzz(func(t *testing.T, p, code string) {
		for _, path := range []string{p, "m.py", "m.js", "m.go"} {
			Scan(File{Path: path, Content: []byte(code)})
			Scan(File{Path: path, Content: []byte(code), Added: map[int]bool{1: true}, Orig: []byte(code[:len(code)/2])})
		}
	})
}
