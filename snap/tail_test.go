package snap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTailFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("small", "a\nb\nc\n\n")
	cases := []struct {
		name      string
		path      string
		lines     int
		bytes     int64
		want      string
		wantTrunc bool
	}{
		{"whole", small, 0, 0, "a\nb\nc\n\n", false},
		{"lines fold the trailing newlines", small, 5, 1 << 20, "a\nb\nc\n", false},
		{"last lines", small, 2, 1 << 20, "b\nc\n", true},
		{"bytes start after a newline", write("big", "0123456789\nsecond\nthird\n"), 0, 15, "second\nthird\n", true},
		{"bytes and lines", write("big2", "x\ny\nz"), 1, 3, "z\n", true},
		{"empty", write("empty", ""), 3, 10, "", false},
		{"one long line cut", write("long", strings.Repeat("x", 20)), 0, 5, "xxxxx", true},
	}
	for _, c := range cases {
		got, trunc, err := TailFile(c.path, c.lines, c.bytes)
		if err != nil || got != c.want || trunc != c.wantTrunc {
			t.Errorf("%s: %q %v %v, want %q %v", c.name, got, trunc, err, c.want, c.wantTrunc)
		}
	}
	if _, _, err := TailFile(filepath.Join(dir, "missing"), 1, 1); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
