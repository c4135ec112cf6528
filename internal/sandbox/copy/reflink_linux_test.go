package copy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// reflinkDir is a directory on a filesystem that shares blocks:
// $SHADOW_TEST_REFLINK_DIR, else (as root with xfsprogs) a loop-mounted
// XFS image made for the test.
func reflinkDir(t *testing.T) string {
	if d := os.Getenv("SHADOW_TEST_REFLINK_DIR"); d != "" {
		dir, err := os.MkdirTemp(d, "reflink-test-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	mkfs, err := exec.LookPath("mkfs.xfs")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("needs a reflink filesystem: SHADOW_TEST_REFLINK_DIR, or root with mkfs.xfs (apt-get install xfsprogs)")
	}
	top := t.TempDir()
	img, mnt := filepath.Join(top, "xfs.img"), filepath.Join(top, "mnt")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 320<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mkfs, "-q", "-m", "reflink=1", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.xfs: %v %s", err, out)
	}
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		t.Skipf("loop mount refused here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	return mnt
}

// TestReflinkSharesBlocks: on a filesystem that can, every file of the
// copy shares its blocks with the original (FICLONE), and a write to the
// copy leaves the original as it was.
func TestReflinkSharesBlocks(t *testing.T) {
	root := reflinkDir(t)
	ws := filepath.Join(root, "ws")
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	write(t, ws, "big.bin", string(data), 0o644)
	write(t, ws, "sub/small.txt", "small\n", 0o644)
	c, err := copyTree(ws, filepath.Join(root, "copy"), copyOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if c.st.Cloned != 2 || c.st.Files != 2 {
		t.Fatalf("cloned %d of %d files", c.st.Cloned, c.st.Files)
	}
	if err := os.WriteFile(filepath.Join(root, "copy", "big.bin"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "big.bin")); !bytes.Equal(b, data) {
		t.Fatal("a write to the reflinked copy reached the original")
	}
}

// TestPlainCopyWhereNoReflink: on a filesystem that cannot share blocks
// (the test's temporary directory, usually ext4 or tmpfs) the copy falls
// back to copying the bytes.
func TestPlainCopyWhereNoReflink(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	write(t, ws, "a.txt", "a\n", 0o644)
	c, err := copyTree(ws, filepath.Join(t.TempDir(), "copy"), copyOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if c.st.Files != 1 || c.st.Bytes != 2 {
		t.Fatalf("%+v", c.st)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dst, "a.txt")); string(b) != "a\n" {
		t.Fatalf("copy holds %q", b)
	}
}
