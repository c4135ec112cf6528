//go:build unix

package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An edit's "file" that is not a regular file, or is too large, is
// refused at once with a SpecError naming the hypothesis and the field:
// a FIFO with no writer would block a plain read forever and /dev/zero
// would fill memory.
func TestEditSourceMustBeARegularFileWithinTheLimit(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	inline := strings.Repeat("x", 2048)
	for _, c := range []struct {
		name string
		edit SpecEdit
		want string
	}{
		{"fifo", SpecEdit{Path: "a.txt", File: "fifo"}, "named pipe"},
		{"dev-zero", SpecEdit{Path: "a.txt", File: "/dev/zero"}, "device"},
		{"directory", SpecEdit{Path: "a.txt", File: "sub"}, "directory"},
		{"oversized", SpecEdit{Path: "a.txt", File: "big"}, "larger than the 1 KiB limit"},
		{"oversized-inline", SpecEdit{Path: "a.txt", Content: &inline}, "larger than the 1 KiB limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := &Spec{Hypotheses: []SpecHyp{{Name: "h", Edits: []SpecEdit{c.edit}}}}
			start := time.Now()
			_, err := Resolve(spec, dir, ws, nil, Limits{MaxEditSize: 1024})
			if d := time.Since(start); d > time.Second {
				t.Fatalf("took %v", d)
			}
			var se *SpecError
			if !errors.As(err, &se) || se.Hyp != "h" || !strings.HasPrefix(se.Field, "edits[0]") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a SpecError for h edits[0] saying %q", err, c.want)
			}
		})
	}
	// Within the limit, a regular file is read.
	if err := os.WriteFile(big, make([]byte, 1024), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := &Spec{Hypotheses: []SpecHyp{{Name: "h", Edits: []SpecEdit{{Path: "a.txt", File: "big"}}}}}
	hs, err := Resolve(spec, dir, ws, nil, Limits{MaxEditSize: 1024})
	if err != nil || len(hs[0].Files[0].Content) != 1024 {
		t.Fatal(err)
	}
}
