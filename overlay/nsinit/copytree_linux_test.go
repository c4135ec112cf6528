package nsinit

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// allocated is the disk space the files under dir take (st_blocks), each
// inode counted once.
func allocated(t *testing.T, dir string) int64 {
	t.Helper()
	seen := map[uint64]bool{}
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		if fi.Mode().IsRegular() && !seen[st.Ino] {
			seen[st.Ino] = true
			n += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// --keep's copy of a RAM upper must not be bigger on disk than the capped
// tmpfs it comes from: a hostile hypothesis that leaves a sparse file of
// 1 GiB apparent size (a few KiB of blocks) and one file hard-linked a
// hundred times would otherwise have shadow write gigabytes into the state
// dir, far past --upper-size. cargo's own outputs are hard-linked
// (target/debug/x and deps/x-HASH): the copy keeps them one inode.
func TestCopyTreeKeepIsNoBiggerThanItsSource(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	sparse, err := os.Create(filepath.Join(src, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sparse.WriteAt([]byte("head"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := sparse.WriteAt([]byte("tail"), 1<<30); err != nil {
		t.Fatal(err)
	}
	sparse.Close()
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	if err := os.WriteFile(filepath.Join(src, "linked"), chunk, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(src, "deps"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if err := os.Link(filepath.Join(src, "linked"), filepath.Join(src, "deps", "l"+string(rune('a'+i%26))+string(rune('a'+i/26)))); err != nil {
			t.Fatal(err)
		}
	}
	if err := CopyTree(src, dst, true); err != nil {
		t.Fatal(err)
	}
	want := allocated(t, src)
	if got := allocated(t, dst); got > want+1<<20 {
		t.Fatalf("the copy takes %d bytes on disk, its source %d", got, want)
	}
	f, err := os.Open(filepath.Join(dst, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head, mid, tail := make([]byte, 4), make([]byte, 4), make([]byte, 4)
	_, _ = f.ReadAt(head, 0)
	_, _ = f.ReadAt(mid, 1<<29)
	_, _ = f.ReadAt(tail, 1<<30)
	if fi, _ := f.Stat(); fi.Size() != 1<<30+4 || string(head) != "head" || string(tail) != "tail" || string(mid) != "\x00\x00\x00\x00" {
		t.Fatalf("the sparse file's copy differs (size %d)", fi.Size())
	}
	a, _ := os.Stat(filepath.Join(dst, "linked"))
	l, _ := os.Stat(filepath.Join(dst, "deps", "laa"))
	if !os.SameFile(a, l) {
		t.Error("hard links of one file became separate copies")
	}
	if got, _ := os.ReadFile(filepath.Join(dst, "deps", "ldd")); string(got) != string(chunk) {
		t.Error("a hard link's content differs")
	}
}
