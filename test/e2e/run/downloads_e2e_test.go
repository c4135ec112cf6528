//go:build linux

package run

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"

	"github.com/shadow-dev/shadow/test/e2e"
)

// Checked downloads (docs/modes.md, "Checked downloads"): what any
// hypothesis downloads that the checkout's go.sum or package-lock.json
// names enters the home layer once shadow has checked its hash; what no
// lockfile of the checkout vouches for (a tampered zip, go.mod or
// tarball, a module only the candidate's own go.sum names) does not.

// modFile is one file of a module zip made in the test.
type modFile struct {
	name string
	data []byte
}

func (f modFile) Path() string { return f.name }
func (f modFile) Lstat() (os.FileInfo, error) {
	return fakeInfo{filepath.Base(f.name), int64(len(f.data))}, nil
}
func (f modFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type fakeInfo struct {
	name string
	size int64
}

func (i fakeInfo) Name() string       { return i.name }
func (i fakeInfo) Size() int64        { return i.size }
func (i fakeInfo) Mode() os.FileMode  { return 0o644 }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return false }
func (i fakeInfo) Sys() any           { return nil }

// proxyModule writes mod@v1.0.0 (one package returning body) into the
// GOPROXY=file:// directory proxy, or its zip alone at zipAt, and returns
// go.sum's two lines for it.
func proxyModule(t *testing.T, proxy, mod, body, zipAt string) string {
	t.Helper()
	m := module.Version{Path: mod, Version: "v1.0.0"}
	gomod := []byte("module " + mod + "\n\ngo 1.21\n")
	pkg := strings.ToLower(filepath.Base(mod))
	var zb bytes.Buffer
	files := []modzip.File{modFile{"go.mod", gomod}, modFile{pkg + ".go", []byte("package " + pkg + "\n\nfunc V() string { return \"" + body + "\" }\n")}}
	if body == "FORGED" {
		// A name is stored as it is in a zip: grep finds it.
		files = append(files, modFile{"FORGED.txt", []byte("x\n")})
	}
	if err := modzip.Create(&zb, m, files); err != nil {
		t.Fatal(err)
	}
	esc, _ := module.EscapePath(mod)
	dir := filepath.Join(proxy, filepath.FromSlash(esc), "@v")
	if zipAt != "" {
		dir = filepath.Dir(zipAt)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(dir, "v1.0.0.zip")
	if zipAt != "" {
		zipPath = zipAt
	} else {
		os.WriteFile(filepath.Join(dir, "list"), []byte("v1.0.0\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "v1.0.0.info"), []byte(`{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`), 0o644)
		os.WriteFile(filepath.Join(dir, "v1.0.0.mod"), gomod, 0o644)
	}
	if err := os.WriteFile(zipPath, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	hm, _ := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(gomod)), nil })
	return mod + " v1.0.0 " + h + "\n" + mod + " v1.0.0/go.mod " + hm + "\n"
}

// npmTarball is a package tarball of dep@1.0.0 whose index.js holds body.
func npmTarball(t *testing.T, body string) []byte {
	t.Helper()
	var b bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&b, gzip.NoCompression) // its text visible to grep
	tw := tar.NewWriter(gz)
	for _, f := range []struct{ name, data string }{{"package/package.json", `{"name":"dep","version":"1.0.0"}`}, {"package/index.js", "module.exports = '" + body + "'\n"}} {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), ModTime: time.Unix(0, 0)})
		tw.Write([]byte(f.data))
	}
	tw.Close()
	gz.Close()
	return b.Bytes()
}

// downloadsEnv is homeEnv with a module that requires example.com/Dep,
// a GOPROXY=file:// directory in the workspace holding it and two more
// (example.com/Other, which the checkout's go.sum names too, and
// example.com/Cand, which it does not), an npm project whose lockfile
// names dep@1.0.0's tarball (kept in the workspace too), and the tampered
// files a forger plants. It returns Cand's go.sum lines.
func downloadsEnv(t *testing.T) (*e2e.Env, string) {
	e := homeEnv(t)
	proxy := filepath.Join(e.WS, "proxy")
	sum := proxyModule(t, proxy, "example.com/Dep", "real", "") + proxyModule(t, proxy, "example.com/Other", "real", "")
	cand := proxyModule(t, proxy, "example.com/Cand", "real", "")
	proxyModule(t, proxy, "example.com/Other", "FORGED", filepath.Join(e.WS, "forged", "other.zip"))
	e.Write("go.mod", "module m\n\ngo 1.21\n\nrequire example.com/Dep v1.0.0\n", 0o644)
	e.Write("go.sum", sum, 0o644)
	e.Write("main.go", "package main\n\nimport \"example.com/Dep\"\n\nfunc main() { println(dep.V()) }\n", 0o644)
	tgz := npmTarball(t, "real")
	e.Write("npm/dep-1.0.0.tgz", string(tgz), 0o644)
	e.Write("npm/forged.tgz", string(npmTarball(t, "FORGED")), 0o644)
	s := sha512.Sum512(tgz)
	integ := "sha512-" + base64.StdEncoding.EncodeToString(s[:])
	e.Write("app/package.json", `{"name":"app","version":"1.0.0","dependencies":{"dep":"1.0.0"}}`, 0o644)
	e.Write("app/package-lock.json", `{"name":"app","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{"":{"name":"app","version":"1.0.0","dependencies":{"dep":"1.0.0"}},"node_modules/dep":{"version":"1.0.0","resolved":"https://registry.npmjs.org/dep/-/dep-1.0.0.tgz","integrity":"`+integ+`"}}}`, 0o644)
	e.Write("npm/digest", hex.EncodeToString(s[:]), 0o644)
	for i, kv := range e.ExtraEnv {
		if strings.HasPrefix(kv, "GOPROXY=") {
			e.ExtraEnv[i] = "GOPROXY=file://" + proxy
		}
	}
	e.ExtraEnv = append(e.ExtraEnv, "GOSUMDB=off", "npm_config_cache=", "NPM_CONFIG_CACHE=")
	return e, cand
}

// The scripts, from the workspace: each prints "1 passed" so the
// hypothesis passes. The caches where the command's environment puts
// them (copy mode points npm_config_cache at the job's own).
const dlPrelude = `set -e
mc=$(go env GOMODCACHE); npm=${npm_config_cache:-$HOME/.npm}
h=$(cat npm/digest); blob="$npm/_cacache/content-v2/sha512/$(echo $h | cut -c1-2)/$(echo $h | cut -c3-4)/$(echo $h | cut -c5-)"
`

// fetchGo downloads the module the checkout requires, through the go
// command (it checks the zip against go.sum as it does for the user).
const fetchGo = "go mod download example.com/Dep\n"

// fetchNPM puts the locked tarball where npm's cache keeps it by digest
// (cacache's content-v2), as npm's fetch of it would.
const fetchNPM = "mkdir -p \"$(dirname \"$blob\")\"; cp npm/dep-1.0.0.tgz \"$blob\"\n"

// forgeGo plants a tampered zip, go.mod, .ziphash and extracted
// directory for example.com/Other (named by the checkout's go.sum, so
// only the hash tells them apart) and a tampered go.mod for Dep.
const forgeGo = `o="$mc/cache/download/example.com/!other/@v"; mkdir -p "$o" "$mc/example.com/!other@v1.0.0" "$mc/cache/download/example.com/!dep/@v"
cp forged/other.zip "$o/v1.0.0.zip"
printf 'module example.com/Other // FORGED\n' > "$o/v1.0.0.mod"
echo h1:FORGED > "$o/v1.0.0.ziphash"; echo '{"Version":"v1.0.0","FORGED":1}' > "$o/v1.0.0.info"
printf 'package other // FORGED\n' > "$mc/example.com/!other@v1.0.0/other.go"
printf 'module example.com/Dep // FORGED\n' > "$mc/cache/download/example.com/!dep/@v/v1.0.0.mod"
`

// forgeNPM stores other bytes under the locked tarball's digest, and a
// tarball no lockfile names under its own.
const forgeNPM = `mkdir -p "$(dirname "$blob")"; cp npm/forged.tgz "$blob"
f=$(sha512sum npm/forged.tgz | cut -c1-128); d="$npm/_cacache/content-v2/sha512/$(echo $f | cut -c1-2)/$(echo $f | cut -c3-4)"; mkdir -p "$d"; cp npm/forged.tgz "$d/$(echo $f | cut -c5-)"
`

// lookGo: the go command loads the module the checkout requires offline
// from what the layer holds (go list checks the extracted directory's
// .ziphash against go.sum); nothing of Other or Cand is there, nor anything forged.
const lookGo = `d=$(GOPROXY=off GOFLAGS=-mod=mod go list -f '{{.Dir}}' example.com/Dep) && grep -h 'return' "$d"/*.go | sed 's/^/ran /'
n=0; for f in "$mc/cache/download/example.com/!other" "$mc/cache/download/example.com/!cand" "$mc/example.com/!other@v1.0.0" "$mc/example.com/!cand@v1.0.0"; do if [ -e "$f" ]; then n=$((n+1)); fi; done; echo "others $n"
echo "forged $(grep -rl FORGED "$mc" 2>/dev/null | wc -l)"
`

const lookNPM = `if [ -f "$blob" ] && cmp -s "$blob" npm/dep-1.0.0.tgz; then echo npm-blob; fi
echo "npm-forged $(grep -rlc FORGED "$npm" 2>/dev/null | wc -l)"
if command -v npm >/dev/null; then (cd app && npm ci --offline --no-audit --no-fund --loglevel=error >/dev/null 2>&1 && grep -q real node_modules/dep/index.js && echo npm-ci) || true; fi
`

// TestE2EHomeLayerKeepsCheckedDownloads: in the first run candidates
// fetch what the checkout's lockfiles name (a Go module, an npm
// tarball), forge what they name (Other's zip and go.mod, Dep's go.mod,
// the tarball's bytes) and fetch a module only their own edited go.sum
// names. The next run's baseline finds exactly the checked downloads in
// the layer: Go builds offline from them, npm ci --offline installs;
// nothing forged or unvouched reached it, shadow's state or the user's
// $HOME. Overlay and copy mode (copy mode gives Go's module cache no
// private copy: only npm's downloads there).
func TestE2EHomeLayerKeepsCheckedDownloads(t *testing.T) {
	for _, mode := range []string{"overlay", "copy"} {
		t.Run(mode, func(t *testing.T) {
			e, cand := downloadsEnv(t)
			goToo := mode == "overlay"
			fetch, forge, look := dlPrelude+fetchNPM, dlPrelude+forgeNPM, dlPrelude+lookNPM
			if goToo {
				fetch, forge, look = fetch+fetchGo, forge+forgeGo, look+lookGo
			}
			e.Write("run.sh", "echo '1 passed'\n", 0o755)
			e.Write("look.sh", look+"echo '1 passed'\n", 0o755)
			e.Write("fetch.sh", fetch+"echo '1 passed'\n", 0o755)
			e.Write("forge.sh", forge+"echo '1 passed'\n", 0o755)
			hyps := []any{map[string]any{"name": "baseline"},
				map[string]any{"name": "fetch", "edits": []map[string]any{{"path": "run.sh", "content": "sh fetch.sh\n"}}},
				map[string]any{"name": "forge", "edits": []map[string]any{{"path": "run.sh", "content": "sh forge.sh\n"}}}}
			if goToo {
				hyps = append(hyps, map[string]any{"name": "own-sum", "edits": []map[string]any{
					{"path": "go.sum", "content": e.Read("go.sum") + cand},
					{"path": "run.sh", "content": dlPrelude + "go mod download example.com/Cand@v1.0.0\necho '1 passed'\n"}}})
			}
			before := e2e.Tree(t, homeDir(e))
			out, errOut, code := e.Shadow("--headless", "--json", "--mode", mode, "-C", e.WS, e.Spec(map[string]any{"hypotheses": hyps}), "--", "sh", "run.sh")
			if code != 0 {
				t.Fatalf("run 1: exit %d\n%s\n%s", code, out, errOut)
			}
			r := e.Report(out)
			for _, h := range r.Hypotheses {
				if h.Status != "passed" {
					t.Fatalf("run 1: %s %s:\n%s", h.Name, h.Status, h.OutputTail)
				}
			}
			want := 1 // the tarball; Dep's zip and go.mod too in overlay mode
			if goToo {
				want = 3
			}
			if h := r.Warm.Home; h == nil || h.Downloads != want || h.DownloadsRefused < want || h.Updated == 0 {
				t.Errorf("run 1: home %+v; want %d checked downloads kept, the forged and unvouched refused", h, want)
			}
			spec := e.Spec(map[string]any{"hypotheses": []any{map[string]any{"name": "baseline"}, map[string]any{"name": "peer", "edits": []map[string]any{{"path": "x.txt", "content": "x\n"}}}}})
			out, errOut, _ = e.Shadow("--headless", "--json", "--mode", mode, "-C", e.WS, spec, "--", "sh", "look.sh")
			r = e.Report(out)
			for _, h := range r.Hypotheses {
				tail := h.OutputTail
				ok := strings.Contains(tail, "npm-blob") && strings.Contains(tail, "npm-forged 0")
				if _, err := exec.LookPath("npm"); err == nil {
					ok = ok && strings.Contains(tail, "npm-ci")
				}
				if goToo {
					ok = ok && strings.Contains(tail, `return "real"`) && strings.Contains(tail, "others 0") && strings.Contains(tail, "forged 0")
				}
				if !ok {
					t.Errorf("%s of the next run does not find exactly the checked downloads:\n%s\n%s", h.Name, tail, errOut)
				}
			}
			if hits := grepTree(t, filepath.Join(e.State, "shadow"), "FORGED"); len(hits) > 0 {
				t.Errorf("shadow's state holds the forger's writes: %v", hits)
			}
			if e2e.Tree(t, homeDir(e)) != before {
				t.Errorf("the user's $HOME was written")
			}
		})
	}
}
