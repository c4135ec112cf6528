package remote

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// self is this executable and its sha256: the node's copy is keyed by the
// hash, not the version string, which every dev build shares.
var self struct {
	once      sync.Once
	path, sum string
	err       error
}

func selfBinary() (path, sum string, err error) {
	self.once.Do(func() {
		if self.path, self.err = os.Executable(); self.err != nil {
			return
		}
		f, err := os.Open(self.path)
		if err != nil {
			self.err = err
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			self.err = err
			return
		}
		self.sum = hex.EncodeToString(h.Sum(nil))
	})
	return self.path, self.sum, self.err
}

// unameArch maps `uname -m` to GOARCH.
var unameArch = map[string]string{
	"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64",
	"i386": "386", "i686": "386", "armv7l": "arm", "armv6l": "arm",
	"riscv64": "riscv64", "ppc64le": "ppc64le", "s390x": "s390x",
}

// nodeFacts is what the first command on a node finds out.
type nodeFacts struct {
	os, arch string // GOOS, GOARCH
	cacheDir string // absolute: $XDG_CACHE_HOME/shadow/bin or ~/.cache/shadow/bin
	present  bool   // a shadow binary with our sha256 is there
	foreign  bool   // for another OS/arch: a build of ours named for it is there
}

// factsScript prints the node's OS, machine, the cache dir and whether our
// binary is in it, and makes the mirror's directory. $1 is the sha256, $2
// the name a build for another platform would have, $3 the mirror.
const factsScript = `uname -s; uname -m
d="${XDG_CACHE_HOME:-$HOME/.cache}/shadow/bin"; case "$d" in /*) ;; *) d="$PWD/$d";; esac; echo "$d"
if [ -x "$d/$1/shadow" ]; then echo present; else echo absent; fi
if [ -x "$d/$2/shadow" ]; then echo foreign; else echo none; fi
mkdir -p -- "$3" || exit 7`

func (c *Client) facts(ctx context.Context, dest, mirror, version string) (nodeFacts, string, error) {
	_, sum, err := selfBinary()
	if err != nil {
		return nodeFacts{}, "", fmt.Errorf("read this shadow binary: %w", err)
	}
	var f nodeFacts
	cmd := c.Command(dest, "sh", "-c", factsScript, "sh", sum, "", mirror)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = runCtx(ctx, cmd)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err != nil && len(lines) == 5 {
		return f, "", fmt.Errorf("cannot create the mirror directory %s there (%s): give --remote-dir a directory the node user may write", mirror, strings.TrimSpace(stderr.String()))
	}
	if err != nil || len(lines) < 5 {
		return f, "", fmt.Errorf("%v: %s", err, lastLines(stderr.String(), 3))
	}
	f.os = strings.ToLower(strings.TrimSpace(lines[0]))
	f.arch = unameArch[strings.TrimSpace(lines[1])]
	f.cacheDir = strings.TrimSpace(lines[2])
	f.present = strings.TrimSpace(lines[3]) == "present"
	if f.os != "linux" {
		return f, "", fmt.Errorf("it runs %s; remote nodes must be Linux", strings.TrimSpace(lines[0]))
	}
	bin := f.cacheDir + "/" + sum + "/shadow"
	if f.os != runtime.GOOS || f.arch != runtime.GOARCH {
		// Our binary cannot run there: a build for it must be put in place.
		name := "v" + version + "-" + f.os + "-" + f.arch
		foreign := c.Command(dest, "sh", "-c", factsScript, "sh", sum, name, mirror)
		out.Reset()
		foreign.Stdout = &out
		if runCtx(ctx, foreign) == nil && strings.Contains(out.String(), "\nforeign") {
			return f, f.cacheDir + "/" + name + "/shadow", nil
		}
		return f, "", fmt.Errorf("it is %s/%s and this shadow is %s/%s, so it cannot bring itself: build shadow %s for it (GOOS=%s GOARCH=%s go build -o shadow .) and copy it there to %s/%s/shadow",
			f.os, f.arch, runtime.GOOS, runtime.GOARCH, version, f.os, f.arch, f.cacheDir, name)
	}
	if f.present {
		return f, bin, nil
	}
	return f, bin, c.install(ctx, dest, f.cacheDir+"/"+sum)
}

// installScript writes stdin to a temporary name in $1 and renames it into
// place: rename(2) is atomic, so two runs installing at once both end with
// a complete binary, and a run that dies half-way leaves only a temporary.
const installScript = `set -e; mkdir -p -- "$1"; t="$1/.shadow.$$.tmp"; trap 'rm -f -- "$t"' EXIT
cat > "$t"; chmod 755 "$t"; mv -f -- "$t" "$1/shadow"; trap - EXIT`

func (c *Client) install(ctx context.Context, dest, dir string) error {
	path, _, err := selfBinary()
	if err != nil {
		return err
	}
	bin, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read this shadow binary %s: %w", path, err)
	}
	defer bin.Close()
	cmd := c.Command(dest, "sh", "-c", installScript, "sh", dir)
	cmd.Stdin = bufio.NewReaderSize(bin, 1<<20)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := runCtx(ctx, cmd); err != nil {
		return fmt.Errorf("install shadow in %s there: %v: %s", dir, err, lastLines(stderr.String(), 3))
	}
	return nil
}

// runCtx runs cmd, killing it when ctx ends.
func runCtx(ctx context.Context, cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return ctx.Err()
	}
}
