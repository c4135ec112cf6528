package downloads

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// fixtureModule writes example.com/Dep@v1.0.0 (an upper-case letter: its
// cache path is case-encoded, "!dep") into a module cache under cache, as
// go mod download leaves it, and returns go.sum's two lines for it.
func fixtureModule(t *testing.T, cache, body string) string {
	t.Helper()
	m := module.Version{Path: "example.com/Dep", Version: "v1.0.0"}
	gomod := []byte("module example.com/Dep\n\ngo 1.21\n")
	var zb bytes.Buffer
	files := []modzip.File{memFile{"go.mod", gomod}, memFile{"dep.go", []byte("package dep\n\nfunc V() string { return \"" + body + "\" }\n")}}
	if err := modzip.Create(&zb, m, files); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "cache", "download", "example.com", "!dep", "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "v1.0.0.zip"), zb.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "v1.0.0.mod"), gomod, 0o644)
	os.WriteFile(filepath.Join(dir, "v1.0.0.info"), []byte(`{"Version":"v1.0.0","Time":"2020-01-01T00:00:00Z"}`), 0o644)
	h, err := dirhash.HashZip(filepath.Join(dir, "v1.0.0.zip"), dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	hm, _ := goModHash(gomod)
	return "example.com/Dep v1.0.0 " + h + "\nexample.com/Dep v1.0.0/go.mod " + hm + "\n"
}

type memFile struct {
	name string
	data []byte
}

func (f memFile) Path() string { return f.name }
func (f memFile) Lstat() (os.FileInfo, error) {
	return memInfo{f}, nil
}
func (f memFile) Open() (ioReadCloser, error) { return nopCloser{bytes.NewReader(f.data)}, nil }

func TestGoModCachePromotesWhatGoSumNames(t *testing.T) {
	ws, src, dst := t.TempDir(), t.TempDir(), t.TempDir()
	sum := fixtureModule(t, src, "real")
	os.WriteFile(filepath.Join(ws, "go.sum"), []byte(sum), 0o644)
	c, err := Read(ws, ".").GoModCache(src, dst, t.TempDir())
	if err != nil || c.Promoted != 2 || c.Refused != 0 {
		t.Fatalf("promoted %+v, %v; want the zip and the go.mod", c, err)
	}
	for _, f := range []string{"cache/download/example.com/!dep/@v/v1.0.0.zip", "cache/download/example.com/!dep/@v/v1.0.0.mod", "cache/download/example.com/!dep/@v/v1.0.0.ziphash", "example.com/!dep@v1.0.0/dep.go"} {
		if _, err := os.Stat(filepath.Join(dst, f)); err != nil {
			t.Errorf("%s not promoted: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, "cache/download/example.com/!dep/@v/v1.0.0.info")); err == nil {
		t.Errorf("the .info (unchecked) was promoted")
	}
	// cmd/go loads the package from what was promoted, offline (and checks
	// the .ziphash against go.sum).
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	main := t.TempDir()
	os.WriteFile(filepath.Join(main, "go.mod"), []byte("module m\n\ngo 1.21\n\nrequire example.com/Dep v1.0.0\n"), 0o644)
	os.WriteFile(filepath.Join(main, "go.sum"), []byte(sum), 0o644)
	os.WriteFile(filepath.Join(main, "m.go"), []byte("package main\n\nimport \"example.com/Dep\"\n\nfunc main() { println(dep.V()) }\n"), 0o644)
	cmd := exec.Command(goBin, "list", "-f", "{{.Dir}}", "example.com/Dep")
	cmd.Dir = main
	cmd.Env = append(os.Environ(), "GOMODCACHE="+dst, "GOPROXY=off", "GOFLAGS=-mod=mod", "GOSUMDB=off", "GOTOOLCHAIN=local", "GOCACHE="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list on the promoted cache: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "dep.go")); err != nil || !strings.Contains(string(b), "real") {
		t.Errorf("go list found %s: %v %q", out, err, b)
	}
}

func TestGoModCacheRefusesWhatGoSumDoesNotName(t *testing.T) {
	ws, real, src, dst := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "go.sum"), []byte(fixtureModule(t, real, "real")), 0o644)
	// A tampered module under the same name and version: neither its zip
	// nor (changed too) its go.mod match.
	fixtureModule(t, src, "forged")
	mod := filepath.Join(src, "cache/download/example.com/!dep/@v/v1.0.0.mod")
	os.WriteFile(mod, []byte("module example.com/Dep\n\ngo 1.22\n"), 0o644)
	// An entry go.sum does not name at all, and a symlink to the real zip.
	other := filepath.Join(src, "cache/download/example.com/other/@v")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "v1.0.0.mod"), []byte("module example.com/other\n"), 0o644)
	c, err := Read(ws, ".").GoModCache(src, dst, t.TempDir())
	if err != nil || c.Promoted != 0 || c.Refused != 3 {
		t.Fatalf("promoted %+v, %v; want all three refused", c, err)
	}
	os.Remove(filepath.Join(src, "cache/download/example.com/!dep/@v/v1.0.0.zip"))
	os.Symlink(filepath.Join(real, "cache/download/example.com/!dep/@v/v1.0.0.zip"), filepath.Join(src, "cache/download/example.com/!dep/@v/v1.0.0.zip"))
	if c, _ := Read(ws, ".").GoModCache(src, dst, t.TempDir()); c.Promoted != 0 {
		t.Errorf("a symlink was followed: %+v", c)
	}
	if n := countAll(dst); n != 0 {
		t.Errorf("%d files left in the destination", n)
	}
}

func TestNPMCachePromotesWhatTheLockfileNames(t *testing.T) {
	ws, src, dst := t.TempDir(), t.TempDir(), t.TempDir()
	tgz, forged := []byte("a tarball"), []byte("a forged tarball")
	put := func(data []byte) {
		sum := sha512.Sum512(data)
		h := hexOf(sum[:])
		p := filepath.Join(src, "_cacache/content-v2/sha512", h[:2], h[2:4], h[4:])
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, data, 0o644)
	}
	put(tgz)
	put(forged)
	// A blob stored under the real tarball's digest with other bytes.
	sum := sha512.Sum512(tgz)
	integ := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	os.WriteFile(filepath.Join(ws, "package-lock.json"), []byte(`{"lockfileVersion":3,"packages":{"":{},"node_modules/a":{"integrity":"`+integ+`"}}}`), 0o644)
	c, err := Read(ws, ".").NPMCache(src, dst, t.TempDir())
	if err != nil || c.Promoted != 1 || c.Refused != 1 {
		t.Fatalf("promoted %+v, %v; want the real one, the forged one refused", c, err)
	}
	h := hexOf(sum[:])
	if b, _ := os.ReadFile(filepath.Join(dst, "_cacache/content-v2/sha512", h[:2], h[2:4], h[4:])); string(b) != string(tgz) {
		t.Errorf("promoted %q", b)
	}
	// The same digest's path with other bytes in it.
	dst2 := t.TempDir()
	os.WriteFile(filepath.Join(src, "_cacache/content-v2/sha512", h[:2], h[2:4], h[4:]), forged, 0o644)
	if c, _ := Read(ws, ".").NPMCache(src, dst2, t.TempDir()); c.Promoted != 0 || countAll(dst2) != 0 {
		t.Errorf("bytes that are not the named tarball's were promoted: %+v", c)
	}
	// Lockfile version 1 nests its dependencies.
	os.WriteFile(filepath.Join(ws, "package-lock.json"), []byte(`{"lockfileVersion":1,"dependencies":{"a":{"integrity":"sha1-xx `+integ+`","dependencies":{"b":{"integrity":"sha512-`+base64.StdEncoding.EncodeToString(make([]byte, 64))+`"}}}}}`), 0o644)
	if s := Read(ws, "."); len(s.npm) != 2 {
		t.Errorf("lockfile v1: %d integrities, want 2", len(s.npm))
	}
}
