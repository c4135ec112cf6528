package remote

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
// the name a build for another platform would have, $3 the mirror. With
// $4 = hold and our binary there, the same session goes on as the node's
// hold (one session less on every run but the first).
const factsScript = `uname -s; uname -m
d="${XDG_CACHE_HOME:-$HOME/.cache}/shadow/bin"; case "$d" in /*) ;; *) d="$PWD/$d";; esac; echo "$d"
if [ -x "$d/$1/shadow" ]; then touch -c -- "$d/$1"; echo present; else echo absent; fi
if [ -x "$d/$2/shadow" ]; then echo foreign; else echo none; fi
mkdir -p -- "$3" || exit 7
if [ "$4" = hold ] && [ -x "$d/$1/shadow" ]; then exec "$d/$1/shadow" ` + NodeArg + ` hold "$3"; fi`

// factsLines is how many lines factsScript prints before a hold's replies.
const factsLines = 5

// parseFacts reads factsScript's lines. bin is our binary's path there
// (present or not) and native whether this binary can run there.
func parseFacts(lines []string, sum string) (f nodeFacts, bin string, native bool, err error) {
	if len(lines) < factsLines {
		return f, "", false, errors.New("the node printed too little")
	}
	f.os = strings.ToLower(strings.TrimSpace(lines[0]))
	f.arch = unameArch[strings.TrimSpace(lines[1])]
	f.cacheDir = strings.TrimSpace(lines[2])
	f.present = strings.TrimSpace(lines[3]) == "present"
	f.foreign = strings.TrimSpace(lines[4]) == "foreign"
	if f.os != "linux" {
		return f, "", false, fmt.Errorf("it runs %s; remote nodes must be Linux", strings.TrimSpace(lines[0]))
	}
	return f, f.cacheDir + "/" + sum + "/shadow", f.os == runtime.GOOS && f.arch == runtime.GOARCH, nil
}

// binary makes sure a shadow that can run there is there and returns its
// path: ours, copied over when missing, or for another platform a build
// the user put in place (asked for by name when there is none).
func (c *Client) binary(ctx context.Context, dest, mirror, version string, f nodeFacts, native bool) (string, error) {
	_, sum, err := selfBinary()
	if err != nil {
		return "", err
	}
	if native {
		if !f.present {
			if err := c.install(ctx, dest, f.cacheDir+"/"+sum); err != nil {
				return "", err
			}
		}
		return f.cacheDir + "/" + sum + "/shadow", nil
	}
	name := "v" + version + "-" + f.os + "-" + f.arch
	var out bytes.Buffer
	cmd := c.Command(dest, "sh", "-c", factsScript, "sh", sum, name, mirror)
	cmd.Stdout = &out
	if runCtx(ctx, cmd) == nil {
		if g, _, _, err := parseFacts(strings.Split(strings.TrimSpace(out.String()), "\n"), sum); err == nil && g.foreign {
			return f.cacheDir + "/" + name + "/shadow", nil
		}
	}
	return "", fmt.Errorf("it is %s/%s and this shadow is %s/%s, so it cannot bring itself: build shadow %s for it (GOOS=%s GOARCH=%s go build -o shadow .) and copy it there to %s/%s/shadow",
		f.os, f.arch, runtime.GOOS, runtime.GOARCH, version, f.os, f.arch, f.cacheDir, name)
}

// installScript writes stdin to a temporary name in $1 and renames it into
// place: rename(2) is atomic, so two runs installing at once both end with
// a complete binary, and a run that dies half-way leaves only a temporary.
// Then it prunes: every dev build is a new sha256, so the binaries of
// other builds not used for binKeptDays (factsScript touches the one a run
// uses) are removed; a running binary is unaffected by its unlink.
const installScript = `set -e; mkdir -p -- "$1"; t="$1/.shadow.$$.tmp"; trap 'rm -f -- "$t"' EXIT
cat > "$t"; chmod 755 "$t"; mv -f -- "$t" "$1/shadow"; trap - EXIT
for o in "${1%/*}"/*; do n=${o##*/}; [ "$o" = "$1" ] && continue; [ ${#n} -eq 64 ] || continue
case "$n" in *[!0-9a-f]*) continue;; esac
[ -n "$(find "$o" -maxdepth 0 -mtime +` + binKeptDays + `)" ] && rm -rf -- "$o"; done; exit 0`

// binKeptDays is how long a node keeps the binary of a build no run used.
const binKeptDays = "14"

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
